"""Dataset text is shown as text: escaped, with item names highlighted."""

from infact.text.display import dialog_html, highlight_items, response_html


def test_quoted_titles_are_highlighted():
    out = highlight_items('try "Alien (1979)" or "Aliens (1986)"')
    assert out.count('<mark class="infact-item"') == 2
    assert "&quot;Alien (1979)&quot;</mark>" in out


def test_markup_in_dataset_text_is_escaped():
    evil = '<script>alert(1)</script> "<img src=x onerror=alert(2)>" & more'
    out = highlight_items(evil)
    assert "<script>" not in out and "<img" not in out
    assert "&lt;script&gt;" in out and "&lt;img src=x onerror=alert(2)&gt;" in out
    assert "&amp; more" in out


def test_dialog_marks_roles_and_ends_with_the_placeholder():
    html = dialog_html([("user", "hi"), ("bot", "hello"), ("user", 'like "Heat (1995)"')], intro="Read <this>")
    assert html.count("infact-user") == 2 and html.count("infact-bot") == 2  # + the placeholder
    assert html.index("USER:") < html.index("CHAT-BOT:")
    assert html.endswith("…?</span></div></div>")
    assert "Read &lt;this&gt;" in html


def test_response_letter_and_text_are_escaped():
    assert "Response A" in response_html("A", "<b>x</b>")
    assert "<b>x</b>" not in response_html("A", "<b>x</b>")


def test_only_items_are_highlighted_not_every_quoted_word():
    check = 'I am reading this carefully, and I give a rating of "Meaningless" to this response.'
    assert "<mark" not in highlight_items(check)
    out = highlight_items('something "cheeky" like "Heat (1995)" or "Braveheart"', items=["braveheart"])
    assert out.count("<mark") == 2
    assert "&quot;cheeky&quot;" in out and '<mark class="infact-item" style="' in out
    assert "&quot;Braveheart&quot;</mark>" in out and "&quot;Heat (1995)&quot;</mark>" in out


def test_dialog_and_response_highlight_the_listed_items():
    html = dialog_html([("user", 'like "American Pie"?')], items=["American Pie"])
    assert "&quot;American Pie&quot;</mark>" in html
    assert "<mark" not in response_html("A", 'say "Meaningless"', items=["American Pie"])


def test_page_script_is_one_inert_script_per_step():
    from infact.text.display import forget_script, page_script, screen_script

    js = page_script(
        "tok/situation-2</script><b>",
        cookie=("infact-demo", "tok", 60),
        redirect_url="https://app.prolific.com/submissions/complete?cc=C1",
    )
    assert js.count("<script>") == 1 and js.count("</script>") == 1  # the step name cannot close it
    assert '"tok/situation-2\\u003c/script>\\u003cb>"' in js
    assert "infact-demo=tok; Path=/; Max-Age=60; SameSite=Lax" in js
    assert 'window.location.assign("https://app.prolific.com/submissions/complete?cc=C1")' in js
    assert "location" not in page_script("consent") and "cookie" not in page_script("consent")
    assert "Max-Age=0" in forget_script("infact-demo")
    screen = screen_script("tok/live/rubric/A")  # a step's own screens: a key of their own, beside the step's
    assert '"tok/live/rubric/A"' in screen and "__infactScreen" in screen and "__infactStep" not in screen


def test_page_scripts_survive_the_html_sanitizer():
    """st.html runs its HTML through DOMPurify, which drops a script whose text holds something like a tag
    (`<` then a letter, `/` or `!`, even in a comment): the page's script then never runs, and no step
    opens at its top, guards its clicks or remembers its participant."""
    import re

    from infact.text.display import forget_script, page_script, screen_script

    scripts = [
        screen_script("tok/live/vote/</script><b>"),
        page_script(
            "tok/situation-2</script><b>", cookie=("infact-demo", "tok", 60), redirect_url="https://x.org/?a<b"
        ),
        page_script("consent"),
        forget_script("infact-demo"),
    ]
    for js in scripts:
        body = js.removeprefix("<script>").removesuffix("</script>")
        assert not re.search(r"<[/\w!]", body), re.search(r".{30}<[/\w!].{30}", body, re.S)


def test_page_head_parts_are_escaped_and_the_progress_is_a_named_bar():
    from infact.text.display import caption_html, progress_html, title_html

    assert title_html("Rate <b>bots</b>") == '<h1 class="infact-title">Rate &lt;b&gt;bots&lt;/b&gt;</h1>'
    assert "&lt;i&gt;" in caption_html("Read <i>first</i>") and "<i>" not in caption_html("Read <i>first</i>")
    bar = progress_html("Situation 3 of 10", 2, 10)
    assert ">Situation 3 of 10</p>" in bar  # the visible line, its own element (tests find it by text)
    assert 'role="progressbar"' in bar and 'aria-valuenow="2"' in bar and 'aria-valuemax="10"' in bar
    assert 'aria-valuetext="Situation 3 of 10"' in bar and "width:20%" in bar
    assert "width:100%" in progress_html("x", 12, 10) and "width:0%" in progress_html("x", 0, 0)


def test_a_rated_response_is_a_card_the_stylesheet_frames_with_its_scales():
    from infact.text.display import CSS

    assert response_html("B", "hi", card=True).startswith('<div class="infact-response infact-card"')
    assert response_html("B", "hi").startswith('<div class="infact-response"')
    assert ":has(.infact-card)" in CSS and "st-key-infact-withdraw" in CSS
