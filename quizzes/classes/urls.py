from django.urls import path

from quizzes.classes import views as classes

urlpatterns = [
    path("classes/", classes.class_list, name="classes"),
    path("classes/<int:class_id>/", classes.class_detail, name="class_detail"),
    path("classes/<int:class_id>/gradebook/", classes.class_gradebook, name="class_gradebook"),
    path(
        "classes/<int:class_id>/gradebook.csv",
        classes.class_gradebook_csv,
        name="class_gradebook_csv",
    ),
    path("classes/<int:class_id>/joining/", classes.class_joining, name="class_joining"),
    path(
        "classes/<int:class_id>/learners/<int:learner_id>/remove/",
        classes.class_remove,
        name="class_remove",
    ),
    path("classes/<int:class_id>/assignments/new/", classes.assignment_new, name="assignment_new"),
    path(
        "classes/<int:class_id>/assignments/<int:assignment_id>/",
        classes.assignment_detail,
        name="assignment_detail",
    ),
    path(
        "classes/<int:class_id>/assignments/<int:assignment_id>/delete/",
        classes.assignment_delete,
        name="assignment_delete",
    ),
    path(
        "classes/<int:class_id>/assignments/<int:assignment_id>/overrides/<int:learner_id>/remove/",
        classes.override_remove,
        name="override_remove",
    ),
    path(
        "classes/<int:class_id>/assignments/<int:assignment_id>/overrides/",
        classes.override_give,
        name="override_give",
    ),
    path("join/", classes.join_by_code, name="class_join"),
    path("join/<slug:token>/", classes.join_link, name="class_join_link"),
]
