"""The sites allowed to embed quizzes in their pages (guides on MkDocs, Sphinx, a CMS…)."""

from urllib.parse import urlsplit

from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from quizzes.models.content import Quiz

DEFAULT_PORTS = {"http": 80, "https": 443}
ORIGIN_MAX_LENGTH = 300


def origin_normalised(value: str) -> str:
    """`value` as an origin, `scheme://host[:port]`, lower case, without a default port or a
    trailing slash; raises ValidationError for anything else (a path, a query, user info, a
    wildcard, a scheme other than http and https), since a browser compares origins whole."""
    text = value.strip()
    invalid = ValidationError(
        _("Enter an origin: https://guide.example.org, or with a port, http://localhost:8001."),
        code="invalid",
    )
    if not text or len(text) > ORIGIN_MAX_LENGTH or any(c.isspace() for c in text):
        raise invalid
    try:
        parts = urlsplit(text.removesuffix("/"))
        port = parts.port
    except ValueError:
        raise invalid from None
    scheme, host = parts.scheme.lower(), (parts.hostname or "")
    if (
        scheme not in DEFAULT_PORTS
        or not host
        or "*" in host
        or parts.username is not None
        or parts.password is not None
        or parts.path
        or parts.query
        or parts.fragment
        or text.endswith("?")
        or text.endswith("#")
    ):
        raise invalid
    try:
        host = host.encode("idna").decode("ascii") if ":" not in host else f"[{host}]"
    except UnicodeError:
        raise invalid from None
    shown_port = f":{port}" if port is not None and port != DEFAULT_PORTS[scheme] else ""
    return f"{scheme}://{host}{shown_port}"


class EmbedOriginQuerySet(models.QuerySet):
    def for_quiz(self, quiz_filter: Q) -> "EmbedOriginQuerySet":
        """The origins allowed to embed the quiz that `quiz_filter` (on a quiz, its lookups
        prefixed `quiz__`) finds: the site-wide ones and its own."""
        return self.filter(Q(quiz=None) | quiz_filter)


class EmbedOrigin(models.Model):
    """A site whose pages may frame the embed pages (CSP frame-ancestors): of every quiz
    (`quiz` empty), or of one quiz."""

    origin = models.CharField(
        _("origin"),
        max_length=ORIGIN_MAX_LENGTH,
        help_text=_(
            "The guide site's address without a path: https://guide.example.org "
            "(and its port if it has one)."
        ),
    )
    quiz = models.ForeignKey(
        Quiz,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="embed_origins",
        verbose_name=_("quiz"),
        help_text=_("Empty: the site may embed every quiz."),
    )
    note = models.CharField(_("note"), max_length=200, blank=True)

    objects = EmbedOriginQuerySet.as_manager()

    class Meta:
        ordering = ["origin", "pk"]
        verbose_name = _("embedding site")
        verbose_name_plural = _("embedding sites")
        constraints = [
            models.UniqueConstraint(fields=["origin", "quiz"], name="embed_origin_once_per_quiz"),
            models.UniqueConstraint(
                fields=["origin"], condition=Q(quiz=None), name="embed_origin_once_site_wide"
            ),
        ]

    def __str__(self) -> str:
        return self.origin

    def clean(self) -> None:
        super().clean()
        try:
            self.origin = origin_normalised(self.origin or "")
        except ValidationError as error:
            raise ValidationError({"origin": error}) from None
