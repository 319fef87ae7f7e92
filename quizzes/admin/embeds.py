"""The sites allowed to embed quizzes: a list of their own, and each quiz's inline."""

from django.contrib import admin

from quizzes.models import EmbedOrigin


@admin.register(EmbedOrigin)
class EmbedOriginAdmin(admin.ModelAdmin):
    list_display = ("origin", "quiz", "note")
    list_filter = (("quiz", admin.EmptyFieldListFilter),)
    list_select_related = ("quiz",)
    search_fields = ("origin", "note", "quiz__slug")
    autocomplete_fields = ("quiz",)


class EmbedOriginInline(admin.StackedInline):
    """The sites allowed to embed this quiz besides those allowed every quiz. Stacked: Django's
    tabular inline heads its first column with an empty <th> (axe: empty-table-header)."""

    model = EmbedOrigin
    fields = ("origin", "note")
    extra = 0
