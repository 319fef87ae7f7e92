from django.db import models
from django.urls import reverse
from django.utils.translation import gettext_lazy as _


class GuidePathQuerySet(models.QuerySet):
    def published(self):
        return self.filter(is_published=True)


class GuidePath(models.Model):
    slug = models.SlugField(_("slug"), max_length=100, unique=True)
    title = models.CharField(_("title"), max_length=200)
    summary = models.TextField(_("summary"), blank=True)
    url = models.URLField(_("guide URL"), blank=True, help_text=_("Where the guide itself lives."))
    position = models.PositiveIntegerField(_("position"), default=0)
    is_published = models.BooleanField(_("published"), default=False)

    objects = GuidePathQuerySet.as_manager()

    class Meta:
        ordering = ["position", "pk"]
        verbose_name = _("guide path")
        verbose_name_plural = _("guide paths")

    def __str__(self) -> str:
        return self.title

    def get_absolute_url(self) -> str:
        return reverse("guide_detail", kwargs={"slug": self.slug})
