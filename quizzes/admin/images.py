"""The admin of the images texts show: uploads checked and named by their content."""

import posixpath

from django import forms
from django.conf import settings
from django.contrib import admin
from django.core.exceptions import ValidationError
from django.core.files.storage import default_storage
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _
from modeltranslation.admin import TranslationAdmin

from quizzes.admin.common import language_name, side_by_side
from quizzes.markup.images import ImageError, image_check, image_name, image_url
from quizzes.models import (
    ContentImage,
)


class ContentImageForm(forms.ModelForm):
    """An upload checked with Pillow (type, size) and named by its content
    (quizzes/markup/images.py)."""

    class Meta:
        model = ContentImage
        fields = ("file",)

    def clean_file(self):
        upload = self.cleaned_data["file"]
        if upload is None or upload == self.instance.file:
            return upload
        data = upload.read()
        try:
            name = image_name(data=data, extension=image_check(data=data))
        except ImageError as error:
            raise ValidationError(str(error)) from None
        taken = ContentImage.objects.filter(file=name).exclude(pk=self.instance.pk).first()
        if taken is not None:
            raise ValidationError(
                gettext("This image is already uploaded, as “%(image)s”.") % {"image": taken}
            )
        if default_storage.exists(name):  # Imported with a quiz file: the same bytes.
            return name
        upload.seek(0)
        upload.name = posixpath.basename(name)
        return upload


@admin.register(ContentImage)
class ContentImageAdmin(TranslationAdmin):
    form = ContentImageForm
    list_display = ("thumbnail", "alt", "reference", "uploaded_at")
    fields = side_by_side("file", "alt", "thumbnail", "reference")
    readonly_fields = ("thumbnail", "reference")
    search_fields = tuple(f"alt_{code}" for code, _name in settings.LANGUAGES)

    @admin.display(description=_("image"))
    def thumbnail(self, image: ContentImage) -> str:
        if not image.file:
            return "-"
        return format_html('<img src="{}" alt="" class="admin-thumbnail">', image.file.url)

    @admin.display(description=_("Markdown to paste into a text"))
    def reference(self, image: ContentImage) -> str:
        if not image.file:
            return gettext("Shown once the image is saved.")
        rows = (
            (language_name(code), getattr(image, f"alt_{code}") or "…", image_url(image.file.name))
            for code, _name in settings.LANGUAGES
        )
        return format_html(
            "<ul>{}</ul>", format_html_join("", "<li>{}: <code>![{}]({})</code></li>", rows)
        )
