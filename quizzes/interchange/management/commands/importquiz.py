from django.conf import settings
from django.core.management.base import BaseCommand

from quizzes.interchange.importing import FORMATS
from quizzes.interchange.management.commands._importing import ImportCommand


class Command(ImportCommand, BaseCommand):
    help = (
        "Create or update quizzes from a quiz file, a guides file, GIFT or Moodle XML "
        "(docs/quiz-format.md); shows what changes first, and a bad file changes nothing."
    )

    def add_arguments(self, parser):
        super().add_arguments(parser)
        parser.add_argument(
            "--format", choices=FORMATS, help="The file's format (default: from its name)."
        )
        parser.add_argument(
            "--language",
            choices=[code for code, _name in settings.LANGUAGES],
            default=settings.LANGUAGE_CODE,
            help="The language of a GIFT or Moodle XML file's texts.",
        )
        parser.add_argument(
            "--quiz", metavar="SLUG", help="Put every question of a GIFT or Moodle XML file here."
        )

    def handle(
        self, *args, file, dry_run: bool, import_rest: bool, format, language, quiz, **options
    ):
        self.run_import(
            file,
            dry_run=dry_run,
            import_rest=import_rest,
            file_format=format,
            language=language,
            quiz_slug=quiz,
        )
