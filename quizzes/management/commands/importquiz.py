from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from quizzes.quizfile import QuizFileError, quiz_archive_read, quiz_import


class Command(BaseCommand):
    help = (
        "Create or update a quiz from a file (docs/quiz-format.md), YAML or a .zip with its "
        "images; a bad file changes nothing."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", type=Path)

    def handle(self, *args, file: Path, **options):
        try:
            content = file.read_bytes()
        except OSError as error:
            raise CommandError(f"{file}: {error.strerror}.") from None
        try:
            archive = quiz_archive_read(content=content)
            quiz = quiz_import(data=archive.data, images=archive.images)
        except QuizFileError as error:
            raise CommandError(f"{file} was not imported:\n" + "\n".join(error.messages)) from None
        count = quiz.questions.count()
        self.stdout.write(f"Imported {quiz.slug}: {count} questions.")
