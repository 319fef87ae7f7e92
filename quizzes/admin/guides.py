"""The guide paths' admin with the checks the quiz texts get (a guide path's summary is
Markdown the learner pages render): guides knows nothing of quizzes, so the form that checks
a text as those pages render it is given to guides' admin from here."""

from django.contrib import admin

from guides.admin import GuidePathAdmin
from guides.models import GuidePath
from quizzes.admin.forms import ContentForm


class GuidePathForm(ContentForm):
    class Meta:
        model = GuidePath
        fields = ("title", "summary")  # The admin's `fields` make the form it shows.


admin.site.unregister(GuidePath)


@admin.register(GuidePath)
class CheckedGuidePathAdmin(GuidePathAdmin):
    form = GuidePathForm
