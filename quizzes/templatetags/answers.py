"""A short-answer question's accepted answers as a learner is shown them."""

from django import template

from quizzes.kinds.short_answer import shown_answer

register = template.Library()


@register.filter
def accepted(text) -> str:
    """An accepted answer (a Text or a string) without its wildcards: "*DDP*" as "DDP"."""
    return shown_answer(str(text))


@register.filter
def restates(text, response) -> bool:
    """Whether an answer (a Text or a string) shown without its wildcards reads as the
    learner's response, but for case: then naming the answer it matched ("FSDP" matches
    “FSDP”) would say the response twice; "nn.DataParallel" matching “DataParallel” tells
    something."""
    return shown_answer(str(text)).casefold() == str(response).strip().casefold()
