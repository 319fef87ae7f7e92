"""LTI 1.3: the platforms (LMSs) registered with the site, the tool's keys, and what a
launch ties to the site's own records: an account, a class, an assignment, a score to send."""

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _
from jwcrypto.jwk import JWK


class ToolKeyQuerySet(models.QuerySet):
    def current(self) -> "ToolKey":
        """The newest active key, made on first need: what the tool signs with."""
        key = self.filter(is_active=True).order_by("-created_at", "-pk").first()
        return key if key is not None else ToolKey.generate()


class ToolKey(models.Model):
    """The tool's RSA key pair. Platforms read the public half at the JWKS URL; the private
    half signs the tool's requests for service tokens and its deep linking responses."""

    kid = models.CharField(_("key id"), max_length=64, unique=True)
    private_key = models.TextField(_("private key (PEM)"))
    public_key = models.TextField(_("public key (PEM)"))
    is_active = models.BooleanField(_("published"), default=True)
    created_at = models.DateTimeField(_("created"), auto_now_add=True)

    objects = ToolKeyQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-pk"]
        verbose_name = _("tool key")
        verbose_name_plural = _("tool keys")

    def __str__(self) -> str:
        return self.kid

    @classmethod
    def generate(cls) -> "ToolKey":
        jwk = JWK.generate(kty="RSA", size=2048)
        return cls.objects.create(
            kid=jwk.thumbprint(),
            private_key=jwk.export_to_pem(private_key=True, password=None).decode(),
            public_key=jwk.export_to_pem().decode(),
        )

    def public_jwk(self) -> dict:
        jwk = JWK.from_pem(self.public_key.encode())
        return {**jwk.export_public(as_dict=True), "kid": self.kid, "alg": "RS256", "use": "sig"}


class Platform(models.Model):
    """An LMS registered with the site: what it told us when we registered the tool there."""

    name = models.CharField(_("name"), max_length=200)
    issuer = models.CharField(_("issuer"), max_length=255)
    client_id = models.CharField(_("client id"), max_length=255)
    auth_login_url = models.URLField(_("authentication request URL"), max_length=500)
    token_url = models.URLField(_("access token URL"), max_length=500)
    keyset_url = models.URLField(_("public keyset URL"), max_length=500)
    # The deployment ids the platform gave, one a line: a launch of any other is refused.
    deployment_ids = models.TextField(_("deployment ids"), help_text=_("One a line."))
    is_active = models.BooleanField(_("active"), default=True)
    created_at = models.DateTimeField(_("created"), auto_now_add=True)

    class Meta:
        ordering = ["name", "pk"]
        verbose_name = _("LMS platform")
        verbose_name_plural = _("LMS platforms")
        constraints = [
            models.UniqueConstraint(fields=["issuer", "client_id"], name="lti_platform_once"),
        ]

    def __str__(self) -> str:
        return self.name

    def deployments(self) -> list[str]:
        return [line.strip() for line in self.deployment_ids.splitlines() if line.strip()]


class Identity(models.Model):
    """A platform's user, as the site's account: made at their first launch, no password."""

    platform = models.ForeignKey(Platform, on_delete=models.CASCADE, related_name="identities")
    sub = models.CharField(_("LTI user id"), max_length=255)
    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="lti_identity"
    )

    class Meta:
        verbose_name = _("LMS account")
        verbose_name_plural = _("LMS accounts")
        constraints = [
            models.UniqueConstraint(fields=["platform", "sub"], name="lti_identity_once"),
        ]

    def __str__(self) -> str:
        return f"{self.platform} / {self.sub}"


class Context(models.Model):
    """A platform's course (the LTI context), as the site's class."""

    platform = models.ForeignKey(Platform, on_delete=models.CASCADE, related_name="contexts")
    deployment_id = models.CharField(_("deployment id"), max_length=255)
    context_id = models.CharField(_("context id"), max_length=255)
    klass = models.OneToOneField(
        "quizzes.Class", on_delete=models.CASCADE, related_name="lti_context"
    )
    # The Names and Role Provisioning Service's roster of the course, when the platform gives it.
    memberships_url = models.URLField(_("memberships URL"), max_length=500, blank=True)
    # When a launch last queued the roster's reading: a learner's launch queues it once an
    # hour at most.
    roster_asked_at = models.DateTimeField(_("roster asked for"), null=True, blank=True)

    class Meta:
        verbose_name = _("LMS course")
        verbose_name_plural = _("LMS courses")
        constraints = [
            models.UniqueConstraint(
                fields=["platform", "deployment_id", "context_id"], name="lti_context_once"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.platform} / {self.context_id}"


class ResourceLink(models.Model):
    """A link in a course to one of the site's quizzes, as the class's assignment of it."""

    context = models.ForeignKey(Context, on_delete=models.CASCADE, related_name="links")
    link_id = models.CharField(_("resource link id"), max_length=255)
    assignment = models.OneToOneField(
        "quizzes.Assignment", on_delete=models.CASCADE, related_name="lti_link"
    )
    # Where the link's scores go (Assignment and Grade Services), when the platform grades it.
    lineitem_url = models.URLField(_("line item URL"), max_length=500, blank=True)
    # The course's line items, when the launch gave no line item of the link but may make one:
    # the site finds the link's column there, or makes it, before its first score.
    lineitems_url = models.URLField(_("line items URL"), max_length=500, blank=True)

    class Meta:
        verbose_name = _("LMS link")
        verbose_name_plural = _("LMS links")
        constraints = [
            models.UniqueConstraint(fields=["context", "link_id"], name="lti_link_once"),
        ]

    def __str__(self) -> str:
        return f"{self.context} / {self.link_id}"


class ScoreQuerySet(models.QuerySet):
    def pending(self) -> "ScoreQuerySet":
        return self.filter(sent_at=None)


class Score(models.Model):
    """A learner's grade at an LTI assignment, to send to the platform's line item: a row per
    finished attempt, kept until the platform takes it (the outbox the sender retries)."""

    link = models.ForeignKey(ResourceLink, on_delete=models.CASCADE, related_name="scores")
    attempt = models.OneToOneField(
        "quizzes.Attempt", on_delete=models.CASCADE, related_name="lti_score"
    )
    sub = models.CharField(_("LTI user id"), max_length=255)
    score_given = models.DecimalField(_("score given"), max_digits=6, decimal_places=2)
    score_maximum = models.DecimalField(_("score maximum"), max_digits=6, decimal_places=2)
    timestamp = models.DateTimeField(_("graded"))
    tries = models.PositiveIntegerField(_("tries"), default=0)
    last_error = models.TextField(_("last error"), blank=True)
    sent_at = models.DateTimeField(_("sent"), null=True, blank=True)

    objects = ScoreQuerySet.as_manager()

    class Meta:
        ordering = ["timestamp", "pk"]
        verbose_name = _("score for the LMS")
        verbose_name_plural = _("scores for the LMS")

    def __str__(self) -> str:
        return f"{self.link} / {self.sub}: {self.score_given}"


class LoginState(models.Model):
    """What the OIDC login leaves for its launch (the nonce, the state) and what a launch
    leaves for its deep linking response: kept in the database, which every web process
    shares, for a day at most. A nonce's row is deleted as its launch uses it."""

    key = models.CharField(max_length=255, unique=True)
    value = models.JSONField()
    expires_at = models.DateTimeField(db_index=True)

    class Meta:
        verbose_name = _("LTI login state")
        verbose_name_plural = _("LTI login states")

    def __str__(self) -> str:
        return self.key
