from django.core.management.base import BaseCommand, CommandError

from quizzes.models import Quiz
from quizzes.quizfile import quiz_export, quiz_file_dump


class Command(BaseCommand):
    help = "Write a quiz as a quiz file (docs/quiz-format.md) to standard output."

    def add_arguments(self, parser):
        parser.add_argument("slug")

    def handle(self, *args, slug: str, **options):
        try:
            quiz = Quiz.objects.get(slug=slug)
        except Quiz.DoesNotExist:
            raise CommandError(f"There is no quiz with the slug {slug!r}.") from None
        self.stdout.write(quiz_file_dump(quiz_export(quiz=quiz)), ending="")
