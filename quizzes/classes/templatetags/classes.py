"""The classes a learner is in, for pages outside this app (My progress)."""

from django import template

from quizzes.classes.selectors import (
    LearnerAssignment,
    LearnerClass,
    learner_assignments,
    learner_classes,
)

register = template.Library()


@register.simple_tag
def classes_of(user) -> list[LearnerClass]:
    """A signed-in learner's classes (one query); none for anyone else."""
    if not user.is_authenticated:
        return []
    return learner_classes(user=user)


@register.simple_tag
def assignments_of(user) -> list[LearnerAssignment]:
    """A signed-in learner's assignments (two queries: their attempts whose time ran out are
    submitted first); none for anyone else."""
    if not user.is_authenticated:
        return []
    return learner_assignments(user=user)
