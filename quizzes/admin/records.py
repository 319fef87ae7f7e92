"""What learners recorded (attempts, answers), read-only in the admin."""

from django.contrib import admin

from quizzes.models import (
    Answer,
    Attempt,
)


class RecordedAdmin(admin.ModelAdmin):
    """What learners recorded is read, never written, in the admin."""

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(Attempt)
class AttemptAdmin(RecordedAdmin):
    list_display = (
        "public_id",
        "quiz",
        "user",
        "language",
        "started_at",
        "completed_at",
        "score",
        "max_score",
    )
    list_filter = (
        "quiz",
        "language",
        ("completed_at", admin.EmptyFieldListFilter),
        "kind",
        "embedded_in",
    )
    list_select_related = ("quiz", "user")
    search_fields = ("public_id", "user__username", "quiz__slug")
    date_hierarchy = "started_at"


@admin.register(Answer)
class AnswerAdmin(RecordedAdmin):
    list_display = ("attempt", "question", "credit", "is_correct", "answered_at")
    list_filter = ("is_correct", "question__quiz")
    list_select_related = ("attempt", "question")
    search_fields = ("attempt__public_id",)
