from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from quizzes.gift import gift_export
from quizzes.importing import FORMAT_GIFT, FORMAT_MOODLE_XML, FORMAT_YAML
from quizzes.models import Quiz
from quizzes.moodle_xml import moodle_xml_export
from quizzes.quizfile import quiz_export, quiz_file_dump


class Command(BaseCommand):
    help = (
        "Write a quiz to standard output as a quiz file (docs/quiz-format.md), "
        "or as GIFT or Moodle XML in one language."
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

    def handle(self, *args, slug: str, format: str, language: str, **options):
        try:
            quiz = Quiz.objects.get(slug=slug)
        except Quiz.DoesNotExist:
            raise CommandError(f"There is no quiz with the slug {slug!r}.") from None
        data = quiz_export(quiz=quiz)
        if format == FORMAT_GIFT:
            self.stdout.write(gift_export(data, language=language), ending="")
        elif format == FORMAT_MOODLE_XML:
            self.stdout.write(moodle_xml_export(data, language=language).decode(), ending="")
        else:
            self.stdout.write(quiz_file_dump(data), ending="")
