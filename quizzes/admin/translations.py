"""What the quiz admin shows of missing translations: a column and a filter per language on
the list, and the translation status of a quiz's change page."""

from django.contrib import admin
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from quizzes.admin.common import language_name
from quizzes.models import Quiz, other_languages


class MissingTranslationFilter(admin.SimpleListFilter):
    title = _("missing translation")
    parameter_name = "missing"

    def lookups(self, request, model_admin):
        return [(code, language_name(code)) for code in other_languages()]

    def queryset(self, request, queryset):
        if self.value() in other_languages():
            return queryset.filter(**{f"missing_{self.value()}__gt": 0})
        return queryset


def missing_column(language: str):
    """The list column of a language: how many texts it lacks (the queryset's
    `with_missing_translations()` counts them)."""

    def column(quiz: Quiz) -> str:
        missing = getattr(quiz, f"missing_{language}")
        if not missing:
            return gettext("complete")
        return ngettext("%(count)s missing", "%(count)s missing", missing) % {"count": missing}

    column.short_description = language_name(language)
    column.admin_order_field = f"missing_{language}"
    column.__name__ = f"missing_{language}"
    return column


class QuizTranslationStatusMixin:
    """For the quiz admin: name "translation_status" in its `readonly_fields` and `fields`."""

    @admin.display(description=_("translation status"))
    def translation_status(self, quiz: Quiz) -> str:
        if quiz.pk is None:
            return "-"
        rows = []
        for code in other_languages():
            missing = quiz.missing_translations(code)
            if missing:
                summary = ngettext(
                    "%(language)s: %(count)s field missing",
                    "%(language)s: %(count)s fields missing",
                    len(missing),
                ) % {"language": language_name(code), "count": len(missing)}
                items = format_html_join("", "<li>{}</li>", ((place,) for place in missing))
                rows.append(format_html("<p>{}</p><ul>{}</ul>", summary, items))
            else:
                rows.append(
                    format_html(
                        "<p>{}</p>",
                        gettext("%(language)s: complete") % {"language": language_name(code)},
                    )
                )
        return format_html_join("", "{}", ((row,) for row in rows))
