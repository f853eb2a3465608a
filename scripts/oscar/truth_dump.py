#!/usr/bin/env python3
"""Writes the django-oscar proving ground's truth data (STATE/truth/truth.json) from the
shop's database and its own search code.

    OSCAR_GROUND_STATE=DIR DJANGO_SETTINGS_MODULE=shop.settings python truth_dump.py

Products (pk, slug, URL, title, a hash of title + description + price, approved
reviews), categories (pk, URL, descendants) and, for the catalogue and every category,
the product ids each listing shows for every sort order and every facet selection the
shop links to (none, one value, one value of each field), computed with Oscar's
own forms (BrowseCategoryForm, CategoryForm) over its search index, as the views do.
"""

import hashlib
import itertools
import json
import os
import sys

import django

django.setup()

from django.conf import settings  # noqa: E402
from django.http import QueryDict  # noqa: E402
from oscar.core.loading import get_class, get_model  # noqa: E402

Product = get_model("catalogue", "Product")
Category = get_model("catalogue", "Category")
ProductReview = get_model("reviews", "ProductReview")
BrowseCategoryForm = get_class("search.forms", "BrowseCategoryForm")
CategoryForm = get_class("search.forms", "CategoryForm")
base_sqs = get_class("search.facets", "base_sqs")


def listing(cat, params):
    q = QueryDict(mutable=True)
    for k, v in params:
        q.appendlist(k, v)
    kw = {"data": q, "selected_facets": q.getlist("selected_facets"), "searchqueryset": base_sqs(), "load_all": True}
    form = CategoryForm(categories=cat.get_descendants_and_self(), **kw) if cat else BrowseCategoryForm(**kw)
    return [int(r.pk) for r in form.search()]


def main():
    state = os.environ["OSCAR_GROUND_STATE"]
    products = []
    for p in Product.objects.all().order_by("pk"):
        sr = p.stockrecords.first()
        content = f"{p.title}\n{p.description}\n{sr.price if sr else ''}"
        products.append({
            "pk": p.pk, "slug": p.slug, "url": p.get_absolute_url(), "title": p.title,
            "is_public": p.is_public, "structure": p.structure,
            "content_md5": hashlib.md5(content.encode()).hexdigest(),
            "reviews": [r.pk for r in ProductReview.objects.approved().filter(product=p).order_by("pk")],
            "categories": [c.pk for c in p.categories.all()],
        })
    classes = sorted({p.product_class.slug for p in Product.objects.all() if p.product_class})
    ratings = ["None", "1", "2", "3", "4", "5"]
    facet_sets = [()] + [(f"product_class:{c}",) for c in classes] + [(f"rating:{r}",) for r in ratings]
    facet_sets += [(f"product_class:{c}", f"rating:{r}") for c, r in itertools.product(classes, ratings)]
    sorts = [""] + [k for k, _ in BrowseCategoryForm.SORT_BY_CHOICES if k != "relevancy"]
    bases = [(None, "/catalogue/")] + [(c, c.get_absolute_url()) for c in Category.objects.all().order_by("path")]
    listings = []
    for cat, url in bases:
        for facets in facet_sets:
            for s in sorts:
                params = [("selected_facets", f) for f in facets] + ([("sort_by", s)] if s else [])
                listings.append({"base": url, "facets": list(facets), "sort": s, "ids": listing(cat, params)})
    cats = [{"pk": c.pk, "url": c.get_absolute_url(), "name": c.name, "is_public": c.is_public,
             "descendants": [d.pk for d in c.get_descendants_and_self()]}
            for c in Category.objects.all().order_by("path")]
    out = {"per_page": settings.OSCAR_PRODUCTS_PER_PAGE, "reviews_per_page": settings.OSCAR_REVIEWS_PER_PAGE,
           "sorts": sorts, "classes": classes, "products": products, "categories": cats, "listings": listings}
    with open(os.path.join(state, "truth", "truth.json"), "w") as f:
        json.dump(out, f, indent=1)
    print(f"truth_dump.py: {len(products)} products, {len(cats)} categories, {len(listings)} listings")


if __name__ == "__main__":
    sys.exit(main())
