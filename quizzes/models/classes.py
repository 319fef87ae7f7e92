"""Classes: an instructor's groups of learners."""

from django.conf import settings
from django.db import models
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

# A class's join code, read aloud and typed: no 0/O, 1/I/L or U/V to tell apart.
CLASS_CODE_ALPHABET = "23456789ABCDEFGHJKMNPQRSTWXYZ"
CLASS_CODE_LENGTH = 8


def class_code_shown(code: str) -> str:
    """A code as people read it, in two groups: "K7QX-29MF"."""
    half = len(code) // 2
    return f"{code[:half]}-{code[half:]}"


def class_code_typed(typed: str) -> str:
    """A typed code as the database keeps it: capitals, without the dash or spaces."""
    return "".join(typed.split()).replace("-", "").upper()


class ClassQuerySet(models.QuerySet):
    def taught_by(self, user) -> "ClassQuerySet":
        """The classes a user may see and change: their own, or every class for a superuser."""
        return self if user.is_superuser else self.filter(instructors=user)


class Class(models.Model):
    """An instructor's group of learners, who join it by its link or its code.

    Later an LMS's context (LTI 1.3) becomes a class too, and a class gets its assignments.
    """

    name = models.CharField(_("name"), max_length=200)
    instructors = models.ManyToManyField(
        settings.AUTH_USER_MODEL, related_name="classes_taught", verbose_name=_("instructors")
    )
    # Eight characters of CLASS_CODE_ALPHABET, kept without the dash that shows it grouped.
    code = models.CharField(_("join code"), max_length=CLASS_CODE_LENGTH, unique=True)
    # The join link's secret: unguessable, where the code is short enough to be guessed but
    # for the rate limit on typing it.
    token = models.CharField(_("join link token"), max_length=64, unique=True)
    joining_open = models.BooleanField(_("joining open"), default=True)
    created_at = models.DateTimeField(_("created"), auto_now_add=True)

    objects = ClassQuerySet.as_manager()

    class Meta:
        ordering = ["name", "pk"]
        verbose_name = _("class")
        verbose_name_plural = _("classes")

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("class_detail", kwargs={"class_id": self.pk})

    @property
    def code_shown(self) -> str:
        return class_code_shown(self.code)

    def join_url(self) -> str:
        return reverse("class_join_link", kwargs={"token": self.token})


class Membership(models.Model):
    """A learner in a class. Removing them deletes this row only: their attempts stay."""

    klass = models.ForeignKey(
        Class, on_delete=models.CASCADE, related_name="memberships", verbose_name=_("class")
    )
    learner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="memberships",
        verbose_name=_("learner"),
    )
    joined_at = models.DateTimeField(_("joined"), auto_now_add=True)

    class Meta:
        ordering = ["joined_at", "pk"]
        verbose_name = _("membership")
        verbose_name_plural = _("memberships")
        constraints = [
            models.UniqueConstraint(fields=["klass", "learner"], name="membership_once_per_class"),
        ]

    def __str__(self) -> str:
        return f"{self.klass_id} / {self.learner_id}"
