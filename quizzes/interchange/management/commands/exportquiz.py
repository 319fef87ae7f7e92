from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from quizzes.interchange.gift import gift_export
from quizzes.interchange.importing import FORMAT_GIFT, FORMAT_MOODLE_XML, FORMAT_YAML
from quizzes.interchange.moodle_xml import moodle_xml_export
from quizzes.interchange.quizfile import quiz_archive, quiz_export
from quizzes.models import Quiz


class Command(BaseCommand):
    help = (
        "Write a quiz as a quiz file (docs/quiz-format.md): YAML to standard output or to "
        "--output (a quiz with images is a .zip, which needs --output); or as GIFT or Moodle "
        "XML in one language."
    )

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument(
            "--format", choices=[FORMAT_YAML, FORMAT_GIFT, FORMAT_MOODLE_XML], default=FORMAT_YAML
        )
        parser.add_argument(
            "--language",
            choices=[code for code, _name in settings.LANGUAGES],
            default=settings.LANGUAGE_CODE,
            help="The language of a GIFT or Moodle XML export.",
        )
        parser.add_argument("--output", type=Path, help="the file to write (.yaml or .zip)")

    def handle(self, *args, slug: str, format: str, language: str, output: Path | None, **options):
        try:
            quiz = Quiz.objects.get(slug=slug)
        except Quiz.DoesNotExist:
            raise CommandError(f"There is no quiz with the slug {slug!r}.") from None
        if format == FORMAT_GIFT:
            filename, content = "", gift_export(quiz_export(quiz=quiz), language=language).encode()
        elif format == FORMAT_MOODLE_XML:
            filename, content = "", moodle_xml_export(quiz_export(quiz=quiz), language=language)
        else:
            filename, content, _content_type = quiz_archive(quiz=quiz)
        if output is not None:
            output.write_bytes(content)
            self.stderr.write(f"Wrote {output}.")
        elif filename.endswith(".zip"):
            raise CommandError(f"{slug} has images: give --output {filename} to write its .zip.")
        else:
            self.stdout.write(content.decode(), ending="")
