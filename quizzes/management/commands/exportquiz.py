from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from quizzes.models import Quiz
from quizzes.quizfile import quiz_archive


class Command(BaseCommand):
    help = (
        "Write a quiz as a quiz file (docs/quiz-format.md): YAML to standard output, or to "
        "--output; a quiz with images is a .zip, which needs --output."
    )

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("--output", type=Path, help="the file to write (.yaml or .zip)")

    def handle(self, *args, slug: str, output: Path | None, **options):
        try:
            quiz = Quiz.objects.get(slug=slug)
        except Quiz.DoesNotExist:
            raise CommandError(f"There is no quiz with the slug {slug!r}.") from None
        filename, content, _content_type = quiz_archive(quiz=quiz)
        if output is not None:
            output.write_bytes(content)
            self.stderr.write(f"Wrote {output} ({filename.rpartition('.')[2]}).")
        elif filename.endswith(".zip"):
            raise CommandError(f"{slug} has images: give --output {filename} to write its .zip.")
        else:
            self.stdout.write(content.decode(), ending="")
