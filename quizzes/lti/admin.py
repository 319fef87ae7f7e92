from django.conf import settings
from django.contrib import admin
from django.db import models
from django.urls import reverse
from django.utils.html import format_html
from django.utils.translation import gettext_lazy as _

from quizzes.lti.models import Platform, Score, ToolKey


@admin.register(Platform)
class PlatformAdmin(admin.ModelAdmin):
    list_display = ["name", "issuer", "client_id", "is_active"]
    formfield_overrides = {models.URLField: {"assume_scheme": "https"}}
    readonly_fields = ["tool_configuration"]
    fieldsets = [
        (None, {"fields": ["name", "is_active"]}),
        (
            _("What the LMS gives"),
            {
                "fields": [
                    "issuer",
                    "client_id",
                    "auth_login_url",
                    "token_url",
                    "keyset_url",
                    "deployment_ids",
                ]
            },
        ),
        (_("What to give the LMS"), {"fields": ["tool_configuration"]}),
    ]

    @admin.display(description=_("tool's addresses"))
    def tool_configuration(self, obj: Platform | None) -> str:
        rows = [
            (_("Login initiation URL"), reverse("lti_login")),
            (_("Redirection (launch) URL"), reverse("lti_launch")),
            (_("Public keyset (JWKS) URL"), reverse("lti_jwks")),
            (_("Deep linking URL"), reverse("lti_launch")),
        ]
        return format_html(
            "<dl>{}</dl>",
            format_html(
                "".join("<dt>{}</dt><dd><code>{}</code></dd>" for _row in rows),
                *(part for label, url in rows for part in (label, settings.SITE_URL + url)),
            ),
        )


@admin.register(ToolKey)
class ToolKeyAdmin(admin.ModelAdmin):
    list_display = ["kid", "is_active", "created_at"]
    fields = ["kid", "public_key", "is_active", "created_at"]
    readonly_fields = ["kid", "public_key", "created_at"]

    def has_add_permission(self, request) -> bool:
        return False


@admin.register(Score)
class ScoreAdmin(admin.ModelAdmin):
    list_display = ["link", "sub", "score_given", "timestamp", "tries", "sent_at"]
    list_filter = [("sent_at", admin.EmptyFieldListFilter)]
    readonly_fields = [f.name for f in Score._meta.fields]

    def has_add_permission(self, request) -> bool:
        return False
