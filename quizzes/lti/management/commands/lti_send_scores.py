from django.core.management.base import BaseCommand

from quizzes.lti.services import scores_send


class Command(BaseCommand):
    help = (
        "Send the scores LMSs have not taken yet (a platform down, a refused token) to their "
        "line items; run it from cron, every few minutes."
    )

    def handle(self, *args, **options) -> None:
        sent, pending = scores_send()
        self.stdout.write(f"{sent} sent, {pending} still pending")
