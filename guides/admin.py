from django.conf import settings
from django.contrib import admin
from django.db import models
from django.db.models import Count
from django.utils.translation import gettext_lazy as _
from modeltranslation.admin import TranslationAdmin

from .models import GuidePath


@admin.register(GuidePath)
class GuidePathAdmin(TranslationAdmin):
    list_display = ("title", "slug", "position", "is_published", "quiz_count")
    list_editable = ("position", "is_published")
    list_filter = ("is_published",)
    search_fields = ("slug", *(f"title_{code}" for code, _name in settings.LANGUAGES))
    prepopulated_fields = {"slug": (f"title_{settings.LANGUAGE_CODE}",)}
    # Each text's languages side by side, on one line.
    fields = (
        tuple(f"title_{code}" for code, _name in settings.LANGUAGES),
        "slug",
        tuple(f"summary_{code}" for code, _name in settings.LANGUAGES),
        "url",
        "position",
        "is_published",
    )
    formfield_overrides = {models.URLField: {"assume_scheme": "https"}}

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(quiz_count=Count("quizzes"))

    @admin.display(description=_("quizzes"), ordering="quiz_count")
    def quiz_count(self, guide: GuidePath) -> int:
        return guide.quiz_count
