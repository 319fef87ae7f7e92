from django.apps import apps
from django.db.models import Count, Prefetch
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_safe

from .models import GuidePath


def _published_quizzes():
    # Quizzes live downhill of guides: reach them through the reverse relation only.
    quiz_model = apps.get_model("quizzes", "Quiz")
    return Prefetch(
        "quizzes",
        queryset=quiz_model.objects.published().annotate(question_count=Count("questions")),
        to_attr="published_quizzes",
    )


@require_safe
def guide_detail(request: HttpRequest, slug: str) -> HttpResponse:
    try:
        guide = GuidePath.objects.published().prefetch_related(_published_quizzes()).get(slug=slug)
    except GuidePath.DoesNotExist:
        raise Http404(_("There is no guide path at this address.")) from None
    return render(request, "guides/guide_detail.html", {"guide": guide})
