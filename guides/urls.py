from django.urls import path

from . import views

urlpatterns = [
    path("guides/<slug:slug>/", views.guide_detail, name="guide_detail"),
]
