#!/usr/bin/env python3
"""Seeds the django-oscar proving ground through Oscar's own models and helpers.

    OSCAR_GROUND_STATE=DIR DJANGO_SETTINGS_MODULE=shop.settings python seed.py

Deterministic (fixed random seed): 10 categories (create_from_breadcrumbs), two product
classes, one partner, 96 products with a stock record each, reviews on about half of
them (approved), 6 products renamed after their first slug was published (old links
stay in category descriptions), and one product entered twice (same title, text and
price: duplicate content under two objects). Category descriptions link to sorted and
paginated listings, a tracking parameter, an old product slug and a URL without its
trailing slash, as a shop's editors write them.
"""

import os
import random
import sys
from decimal import Decimal

import django

django.setup()

from django.contrib.sites.models import Site  # noqa: E402
from oscar.apps.catalogue.categories import create_from_breadcrumbs  # noqa: E402
from oscar.core.loading import get_model  # noqa: E402

Product = get_model("catalogue", "Product")
ProductClass = get_model("catalogue", "ProductClass")
ProductCategory = get_model("catalogue", "ProductCategory")
Category = get_model("catalogue", "Category")
Partner = get_model("partner", "Partner")
StockRecord = get_model("partner", "StockRecord")
ProductReview = get_model("reviews", "ProductReview")

TREE = ["Books > Maps", "Books > Travel", "Books > History", "Gear > Boots", "Gear > Bags",
        "Gear > Compasses", "Gifts"]
ADJS = """old northern southern eastern western great little royal quiet narrow broad
stone wooden iron red white green grey golden hidden famous windy""".split()
NOUNS = """river harbour bridge mill tower market garden orchard quarry canal valley
ridge forest marsh island delta archive museum workshop abbey castle""".split()
KIND = {"Maps": "Map of the", "Travel": "Walking the", "History": "A History of the",
        "Boots": "Boots", "Bags": "Pack", "Compasses": "Compass", "Gifts": "Gift set"}
WORDS = """sturdy light folding waterproof detailed annotated printed stitched brass
leather canvas paper scale contour index trail route chapter plate colour season""".split()


def text(r, n):
    return " ".join(
        f"{r.choice(WORDS).capitalize()} {r.choice(WORDS)} {r.choice(WORDS)} for the {r.choice(ADJS)} {r.choice(NOUNS)}."
        for _ in range(n))


def main():
    r = random.Random(24)
    Site.objects.update_or_create(pk=1, defaults={"domain": "127.0.0.1:8700", "name": "Field Shop"})
    if Product.objects.exists():
        print("seed.py: the catalogue is already seeded")
        return
    leaves = [create_from_breadcrumbs(b) for b in TREE]
    book = ProductClass.objects.create(name="Book", requires_shipping=True, track_stock=True)
    gear = ProductClass.objects.create(name="Gear", requires_shipping=True, track_stock=True)
    partner = Partner.objects.create(name="Field Shop Warehouse")

    products = []
    n = 0
    for leaf in leaves:
        for k in range(r.randrange(10, 18)):
            n += 1
            title = f"{KIND[leaf.name]} {r.choice(ADJS).title()} {r.choice(NOUNS).title()} {n:03d}"
            p = Product.objects.create(
                title=title, upc=f"FS{n:05d}", structure="standalone",
                product_class=book if leaf.get_parent() and leaf.get_parent().name == "Books" else gear,
                description="<p>" + text(r, r.randrange(3, 7)) + "</p>")
            ProductCategory.objects.create(product=p, category=leaf)
            StockRecord.objects.create(product=p, partner=partner, partner_sku=f"SKU{n:05d}",
                                       price=Decimal(r.randrange(300, 9000)) / 100, num_in_stock=r.randrange(0, 40))
            products.append(p)
    # One product entered twice by mistake: same title, text, category and price.
    orig = products[10]
    twin = Product.objects.create(title=orig.title, upc="FS-TWIN", structure="standalone",
                                  product_class=orig.product_class, description=orig.description)
    ProductCategory.objects.create(product=twin, category=orig.categories.first())
    StockRecord.objects.create(product=twin, partner=partner, partner_sku="SKU-TWIN",
                               price=orig.stockrecords.first().price, num_in_stock=5)
    # Reviews on about half of the products.
    for p in products:
        if r.random() < 0.5:
            for k in range(r.randrange(1, 5)):
                ProductReview.objects.create(
                    product=p, score=r.randrange(1, 6), title=f"{r.choice(WORDS).title()} {r.choice(NOUNS)}",
                    body=text(r, r.randrange(1, 4)), name=f"Walker {r.randrange(100, 999)}",
                    email=f"walker{r.randrange(100, 999)}@example.invalid", status=ProductReview.APPROVED)
    # Renamed after publication: the old slug stays in the editors' links.
    renamed = []
    for p in products[3::16]:
        old = p.slug
        p.slug = p.slug + "-new-edition"
        p.save()
        renamed.append((p, old))
    # Category descriptions, as editors write them (links to listings and products).
    cats = list(Category.objects.all().order_by("path"))
    for i, c in enumerate(cats):
        url = c.get_absolute_url()
        p, old = renamed[i % len(renamed)]
        some = products[(i * 7) % len(products)]
        c.description = (
            f"<p>{text(r, 2)}</p><p>Browse: <a href=\"{url}?sort_by=price-asc\">cheapest first</a>, "
            f"<a href=\"{url}?sort_by=newest\">newest</a>, <a href=\"{url}?sort_by=rating\">best rated</a>, "
            f"<a href=\"{url}?page=1\">from the start</a>, "
            f"<a href=\"{url}?utm_source=newsletter&amp;utm_campaign=spring\">this month's letter</a>. "
            f"Staff pick: <a href=\"/catalogue/{old}_{p.pk}/\">{p.title}</a>; also "
            f"<a href=\"{some.get_absolute_url().rstrip('/')}\">{some.title}</a>.</p>")
        c.save()
    print(f"seed.py: {Category.objects.count()} categories, {Product.objects.count()} products, "
          f"{ProductReview.objects.count()} reviews, {len(renamed)} renamed, 1 entered twice")


if __name__ == "__main__":
    sys.exit(main())
