from pathlib import Path

from django.conf import settings
from django.core.management.base import CommandError

from quizzes.interchange.exporting import EXPORT_FORMATS, quizzes_export
from quizzes.interchange.importing import FORMAT_YAML
from quizzes.interchange.management.commands._output import PipeCommand
from quizzes.models import Quiz


class Command(PipeCommand):
    help = (
        "Write a quiz as a quiz file (docs/quiz-format.md): YAML to standard output or to "
        "--output (a quiz with images is a .zip, which needs --output); or as GIFT or Moodle "
        "XML in one language (Moodle XML with the images its texts show)."
    )

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("--format", choices=EXPORT_FORMATS, default=FORMAT_YAML)
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
        export = quizzes_export(quizzes=[quiz], file_format=format, language=language)
        if output is not None:
            output.write_bytes(export.content)
            self.stderr.write(f"Wrote {output}.")
        elif export.filename.endswith(".zip"):
            raise CommandError(
                f"{slug} has images: give --output {export.filename} to write its .zip."
            )
        else:
            self.stdout.write(export.content.decode(), ending="")
