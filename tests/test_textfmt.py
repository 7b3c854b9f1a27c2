"""Dataset text is shown as text: escaped, with item names highlighted."""

from infact.participation.display import dialog_html, highlight_items, response_html


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
