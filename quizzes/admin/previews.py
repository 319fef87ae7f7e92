"""The question admin's Preview: besides Django's buttons, "Preview" shows the typed question
as learners will read it in each language, without saving; the change page also previews the
saved question."""

from collections.abc import Callable
from dataclasses import dataclass

from django.conf import settings

from quizzes.admin.common import language_name
from quizzes.admin.forms import ContentForm
from quizzes.markup.rendering import Rendered, render
from quizzes.models import Choice

PREVIEW = "_preview"


class PreviewForm(ContentForm):
    """The question form of a Preview submit: checked as for saving, but never valid, so the
    admin shows it again with what was typed (and its errors, if any) instead of saving it."""

    def is_valid(self) -> bool:
        super().is_valid()
        return False


@dataclass(frozen=True)
class PreviewChoice:
    """A choice as learners would read it, with whether it is right and its feedback."""

    text: Rendered
    is_correct: bool
    feedback: Rendered


@dataclass(frozen=True)
class Preview:
    """A question as learners of one language would read it, in the admin."""

    language: str
    name: str
    prompt: Rendered
    choices: list[PreviewChoice]
    explanation: Rendered
    fallback: bool  # Some texts show in the default language: this one has none.


def _language_preview(
    code: str, value: Callable[[str], str], choices: list[Callable[[str], str | bool]]
) -> Preview:
    """One language's preview, from `value("prompt_fr")`… of the question and of each choice.

    A text missing in this language shows in the default one, as learners would see it.
    """
    default = settings.LANGUAGE_CODE
    fallbacks = []

    def shown(get, field: str, *, inline: bool) -> Rendered:
        text = get(f"{field}_{code}") or ""
        if not text and get(f"{field}_{default}"):
            fallbacks.append(field)
            return render(get(f"{field}_{default}"), language=default, inline=inline)
        return render(text, language=code, inline=inline)

    return Preview(
        language=code,
        name=language_name(code),
        prompt=shown(value, "prompt", inline=False),
        choices=[
            PreviewChoice(
                text=shown(choice, "text", inline=True),
                is_correct=bool(choice("is_correct")),
                feedback=shown(choice, "feedback", inline=False),
            )
            for choice in choices
        ],
        explanation=shown(value, "explanation", inline=False),
        fallback=bool(fallbacks),
    )


class QuestionPreviewMixin:
    """For the question admin (a ModelAdmin of Question, with its choices inline); its
    change_form_template shows the `previews` and the Preview button."""

    def get_form(self, request, obj=None, **kwargs):
        if request.method == "POST" and PREVIEW in request.POST:
            kwargs["form"] = PreviewForm
        return super().get_form(request, obj, **kwargs)

    def render_change_form(self, request, context, add=False, change=False, form_url="", obj=None):
        form = context["adminform"].form
        if form.is_bound:
            rows = [
                row
                for inline in context["inline_admin_formsets"]
                if inline.formset.model is Choice
                for row in inline.formset.forms
                if (row.has_changed() or row.instance.pk) and not row["DELETE"].value()
            ]
            choices = [lambda name, row=row: row[name].value() for row in rows]
            previews = [
                _language_preview(code, lambda name: form[name].value(), choices)
                for code, _name in settings.LANGUAGES
            ]
        elif obj is not None:
            choices = [lambda name, c=c: getattr(c, name) for c in obj.choices.all()]
            previews = [
                _language_preview(code, lambda name: getattr(obj, name), choices)
                for code, _name in settings.LANGUAGES
            ]
        else:
            previews = []
        context |= {"previews": previews, "previewing": PREVIEW in request.POST}
        return super().render_change_form(request, context, add, change, form_url, obj)
