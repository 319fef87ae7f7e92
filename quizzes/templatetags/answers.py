"""A short-answer question's accepted answers as a learner is shown them."""

from django import template

from quizzes.kinds.short_answer import shown_answer

register = template.Library()


@register.filter
def accepted(text) -> str:
    """An accepted answer (a Text or a string) without its wildcards: "*DDP*" as "DDP"."""
    return shown_answer(str(text))
