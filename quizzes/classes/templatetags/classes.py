"""The classes a learner is in, for pages outside this app (My progress)."""

from django import template

from quizzes.classes.selectors import LearnerClass, learner_classes

register = template.Library()


@register.simple_tag
def classes_of(user) -> list[LearnerClass]:
    """A signed-in learner's classes (one query); none for anyone else."""
    if not user.is_authenticated:
        return []
    return learner_classes(user=user)
