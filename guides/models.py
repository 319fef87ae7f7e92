from django.db import models, transaction
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from .signals import guide_paths_written


class GuidePathQuerySet(models.QuerySet):
    """Bulk writes say which guide paths they wrote (`guide_paths_written`), as saves do with
    Django's own signals: the quizzes that show them keep their content (quizzes/snapshots.py)."""

    def published(self):
        return self.filter(is_published=True)

    def update(self, **kwargs) -> int:
        with transaction.atomic(using=self.db):
            pks = list(self.values_list("pk", flat=True))
            updated = super().update(**kwargs)
            guide_paths_written.send(sender=self.model, pks=pks)
        return updated

    def bulk_create(self, objs, *args, **kwargs):
        created = super().bulk_create(objs, *args, **kwargs)
        guide_paths_written.send(sender=self.model, pks=[guide.pk for guide in created])
        return created

    def bulk_update(self, objs, *args, **kwargs) -> int:
        objs = list(objs)
        updated = super().bulk_update(objs, *args, **kwargs)
        guide_paths_written.send(sender=self.model, pks=[guide.pk for guide in objs])
        return updated


class GuidePath(models.Model):
    slug = models.SlugField(_("slug"), max_length=100, unique=True)
    title = models.CharField(_("title"), max_length=200)
    summary = models.TextField(_("summary"), blank=True)
    url = models.URLField(_("guide URL"), blank=True, help_text=_("Where the guide itself lives."))
    position = models.PositiveIntegerField(_("position"), default=0)
    is_published = models.BooleanField(_("published"), default=False)

    objects = GuidePathQuerySet.as_manager()

    class Meta:
        verbose_name = _("guide path")
        verbose_name_plural = _("guide paths")
        ordering = ["position", "pk"]

    def __str__(self) -> str:
        return self.title

    def get_absolute_url(self) -> str:
        return reverse("guide_detail", kwargs={"slug": self.slug})
