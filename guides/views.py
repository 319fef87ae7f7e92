from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_safe

from .selectors import guide_path_with_quizzes


@require_safe
def guide_detail(request: HttpRequest, slug: str) -> HttpResponse:
    guide = guide_path_with_quizzes(slug=slug)
    if guide is None:
        raise Http404(_("There is no guide path at this address."))
    return render(request, "guides/guide_detail.html", {"guide": guide})
