from django.core.management.base import BaseCommand

from quizzes.interchange.management.commands._importing import ImportCommand


class Command(ImportCommand, BaseCommand):
    help = (
        "Import a bundle of the whole site (manage.py exportcontent), or any file importquiz "
        "takes: guide paths first, then quizzes, all of it or nothing. --dry-run shows what "
        "would change."
    )

    def handle(self, *args, file, dry_run: bool, import_rest: bool, **options):
        self.run_import(file, dry_run=dry_run, import_rest=import_rest)
