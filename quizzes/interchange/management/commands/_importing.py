"""What importquiz and importcontent share: read the file, show the plan, write it or not."""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from django.utils.translation import gettext

from quizzes.interchange.importing import ImportPlan, import_apply, import_plan, plan_lines
from quizzes.interchange.quizfile import QuizFileError


class ImportCommand(BaseCommand):
    def add_arguments(self, parser):
        parser.add_argument("file", type=Path)
        parser.add_argument(
            "--dry-run", action="store_true", help="Show what the import would do; write nothing."
        )

    def run_import(self, file: Path, *, dry_run: bool, **choices) -> ImportPlan:
        try:
            content = file.read_bytes()
        except OSError as error:
            raise CommandError(f"{file}: {error.strerror}.") from None
        plan = import_plan(content=content, name=file.name, **choices)
        if not plan.can_apply:
            raise CommandError(f"{file} was not imported:\n" + "\n".join(plan_lines(plan)[1:]))
        self.stdout.write("\n".join(plan_lines(plan)))
        if dry_run:
            self.stdout.write(gettext("Dry run: nothing was written."))
            return plan
        if not plan.changes:
            return plan
        try:
            import_apply(plan=plan)
        except QuizFileError as error:
            raise CommandError(f"{file} was not imported:\n" + "\n".join(error.messages)) from None
        self.stdout.write(gettext("Imported."))
        return plan
