"""A notebook served by Voila (the app view, no code cells): its TracePlayer renders and responds."""

from __future__ import annotations

from jlab import player_root, player_state, wait_player_at

#: A short notebook whose last output is a TracePlayer of an AgentFold run (occupancy, state, hierarchy).
NOTEBOOK = "00_start_here.ipynb"


def test_player_renders_and_steps_in_voila(voila_server, page, screenshots):
    # Voila serving a folder renders a notebook at /voila/render/<path>
    page.goto(f"{voila_server}/voila/render/{NOTEBOOK}", wait_until="domcontentloaded", timeout=120_000)
    root = player_root(page, timeout=180_000)
    assert "load_scenario(" not in page.inner_text("body")  # Voila shows outputs, not the code
    start = wait_player_at(root, 0)
    assert start["plots"] == 3, start  # occupancy, state bar, hierarchy (AgentFold)
    assert start["tokens"] > 0, start

    root.get_by_role("button", name="step ▶").click()
    one = wait_player_at(root, 1)
    assert one["info"] != start["info"] and one["state_title"] != start["state_title"], (start, one)
    assert one["marker_y"] != start["marker_y"]
    page.wait_for_function(
        "([root, before]) => Array.from(root.querySelectorAll('.stmviz-token'), s => s.textContent).join('')"
        " !== before",
        arg=[root.element_handle(), start["tokens_text"]],
        timeout=60_000,
    )
    page.wait_for_timeout(800)
    assert player_state(root)["readout"] == 1  # exactly one step

    handle = root.locator(".widget-slider .noUi-handle").first
    handle.focus()
    handle.press("ArrowRight")
    wait_player_at(root, 2)
    assert page.dialogs == [], page.dialogs
    assert page.page_errors == [], page.page_errors
    root.screenshot(path=str(screenshots / "voila_player.png"))
