"""What the guide pages read."""

from django.apps import apps
from django.db.models import Count, Prefetch

from .models import GuidePath


def guide_path_with_quizzes(*, slug: str) -> GuidePath | None:
    """The published guide path at `slug`, its published quizzes (with their
    `question_count`) in `published_quizzes`; None when there is none."""
    # Quizzes live downhill of guides: reach them through the reverse relation only.
    quiz_model = apps.get_model("quizzes", "Quiz")
    quizzes = Prefetch(
        "quizzes",
        queryset=quiz_model.objects.published().annotate(question_count=Count("questions")),
        to_attr="published_quizzes",
    )
    return GuidePath.objects.published().prefetch_related(quizzes).filter(slug=slug).first()
