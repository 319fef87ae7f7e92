"""A report export prepared by the task worker (quizzes/reports/background.py)."""

import uuid

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


class ExportStatus(models.TextChoices):
    WAITING = "waiting", _("waiting")
    RUNNING = "running", _("running")
    DONE = "done", _("done")
    FAILED = "failed", _("failed")


class ReportExport(models.Model):
    """An instructor's `attempts.csv` of a quiz, under the report's filters, written in the
    background to a file in the private storage that only they download.

    `run` counts the tries: a retry starts the next one, and a task writes its progress and
    its result only while its run is the export's (so a worker thought dead that wakes up
    writes nothing). `heartbeat_at` is when the running task last wrote its progress: a
    running export silent for longer than `settings.EXPORT_STALE_SECONDS` lost its worker.
    """

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+"
    )
    quiz = models.ForeignKey("quizzes.Quiz", on_delete=models.CASCADE, related_name="+")
    query = models.TextField(blank=True)  # The report's filters, as its query string.
    language = models.CharField(max_length=10)
    status = models.CharField(max_length=10, choices=ExportStatus, default=ExportStatus.WAITING)
    run = models.PositiveIntegerField(default=1)
    rows_written = models.PositiveIntegerField(default=0)
    rows_total = models.PositiveIntegerField(null=True)
    error = models.CharField(max_length=200, blank=True)
    file_name = models.CharField(max_length=200, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    heartbeat_at = models.DateTimeField(null=True)
    finished_at = models.DateTimeField(null=True)

    class Meta:
        indexes = [models.Index(fields=["created_at"], name="report_export_created")]

    def __str__(self) -> str:
        return f"{self.quiz_id} {self.status} {self.rows_written}/{self.rows_total}"
