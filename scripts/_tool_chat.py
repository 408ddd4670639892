"""Content of the bundled scenario ``tool_chat`` (FIFO window): a support chat with tool calls.

Written as an OpenAI-style message list and turned into a scenario by
``stmviz.scenarios.from_openai_messages``, so the importer's rules are the
scenario's rules.
"""

import json

SYSTEM = (
    "You are the customer assistant of Brightfield Home, an online shop for kitchen appliances. Use the "
    "tools to look up orders, shipments, stock and store hours. Be concise and never invent order data."
)

_calls = 0


def _call(name, **arguments):
    global _calls
    _calls += 1
    return {
        "id": f"call_{_calls:02d}",
        "type": "function",
        "function": {"name": name, "arguments": json.dumps(arguments)},
    }


def _tool_turn(content, calls_and_results):
    msgs = [{"role": "assistant", "content": content, "tool_calls": [c for c, _ in calls_and_results]}]
    for call, result in calls_and_results:
        msgs.append({"role": "tool", "tool_call_id": call["id"], "content": result})
    return msgs


def messages():
    global _calls
    _calls = 0
    m = [{"role": "system", "content": SYSTEM}]
    u = lambda text: m.append({"role": "user", "content": text})  # noqa: E731
    a = lambda text: m.append({"role": "assistant", "content": text})  # noqa: E731
    u("Hello, I ordered a stand mixer two weeks ago and it still hasn't arrived. The order number is "
      "BH-58213-K. My name is Priya Raghunathan.")
    m.extend(_tool_turn("Let me look up that order.", [(
        _call("get_order", order_id="BH-58213-K"),
        json.dumps({"order_id": "BH-58213-K", "customer": "Priya Raghunathan", "placed": "2026-11-17",
                    "items": [{"sku": "MX-700-SLV", "name": "Aurora 700 stand mixer, silver", "qty": 1,
                               "price": 329.0}],
                    "shipping_address": "Flat 4, 27 Kestrel Lane, Hollinsby HB3 9QT",
                    "status": "shipped", "carrier": "ParcelWing", "tracking": "PW771904362GB"}),
    )]))
    a("Thanks, Priya. Your order BH-58213-K for the Aurora 700 stand mixer was shipped with ParcelWing. "
      "I'll check the tracking next.")
    m.extend(_tool_turn("Checking the shipment.", [(
        _call("track_shipment", carrier="ParcelWing", tracking="PW771904362GB"),
        json.dumps({"events": [
            {"time": "2026-11-19 08:12", "place": "Brightfield warehouse, Coldbridge", "event": "collected"},
            {"time": "2026-11-19 21:40", "place": "ParcelWing hub, Marston", "event": "sorted"},
            {"time": "2026-11-21 06:05", "place": "ParcelWing depot, Hollinsby", "event": "out for delivery"},
            {"time": "2026-11-21 14:31", "place": "Hollinsby", "event": "delivery failed: no safe place, "
             "returned to depot"},
            {"time": "2026-11-24 09:00", "place": "ParcelWing depot, Hollinsby", "event": "held for collection "
             "until 2026-12-05"}]}),
    )]))
    a("The courier tried to deliver on 21 November but found no safe place, so the parcel is waiting at the "
      "ParcelWing depot in Hollinsby until 5 December. You can collect it there or I can ask for a redelivery.")
    u("Oh no, I was at work. Can they redeliver on a Saturday?")
    m.extend(_tool_turn("Let me see which redelivery slots the carrier offers.", [(
        _call("redelivery_slots", carrier="ParcelWing", tracking="PW771904362GB"),
        json.dumps({"slots": ["2026-12-03 08:00-12:00", "2026-12-04 12:00-18:00", "2026-12-06 08:00-13:00",
                              "2026-12-06 13:00-18:00"], "note": "Saturday slots cost 4.99 unless the first "
                              "delivery failed; in that case they are free."}),
    )]))
    a("Yes: Saturday 6 December has two slots, 08:00-13:00 and 13:00-18:00, and because the first attempt "
      "failed it is free. Which one suits you?")
    u("Morning, please. Also, while you're at it: do you have the matching pasta roller attachment in stock?")
    m.extend(_tool_turn("I'll book the slot and check the attachment.", [
        (_call("book_redelivery", carrier="ParcelWing", tracking="PW771904362GB", slot="2026-12-06 08:00-13:00"),
         json.dumps({"confirmed": True, "reference": "RD-44017", "slot": "2026-12-06 08:00-13:00"})),
        (_call("check_stock", sku="AT-PR-700"),
         json.dumps({"sku": "AT-PR-700", "name": "Aurora pasta roller set (3 pieces)", "price": 89.0,
                     "online": 0, "stores": {"Hollinsby": 2, "Coldbridge": 5, "Marston": 0},
                     "next_delivery": "2026-12-12"})),
    ]))
    a("Done: redelivery reference RD-44017, Saturday 6 December 08:00-13:00. The pasta roller set costs 89 "
      "pounds; it is out of stock online until 12 December, but the Hollinsby store has 2 in stock.")
    u("The Hollinsby store is near me. What time does it close on Saturdays?")
    m.extend(_tool_turn("Checking the store hours.", [(
        _call("store_hours", store="Hollinsby"),
        json.dumps({"store": "Brightfield Home Hollinsby", "address": "Unit 9, Riverside Retail Park",
                    "hours": {"Mon-Fri": "09:00-20:00", "Sat": "09:00-18:00", "Sun": "10:00-16:00"},
                    "click_and_collect": True}),
    )]))
    a("The Hollinsby store (Unit 9, Riverside Retail Park) is open 09:00-18:00 on Saturdays and offers click "
      "and collect, so you could reserve the set now.")
    u("Yes, reserve one for me please.")
    m.extend(_tool_turn("Reserving it.", [(
        _call("reserve_in_store", sku="AT-PR-700", store="Hollinsby", customer="Priya Raghunathan"),
        json.dumps({"reserved": True, "reservation": "CC-90312", "hold_until": "2026-12-07 16:00",
                    "pay_in_store": 89.0}),
    )]))
    a("Reserved: collection code CC-90312, held until Sunday 7 December at 16:00. You pay 89 pounds in store.")
    u("Great. Unrelated question: is the mixer bowl dishwasher safe? The manual is in the box I don't have yet.")
    m.extend(_tool_turn("Let me check the product sheet.", [(
        _call("product_info", sku="MX-700-SLV"),
        json.dumps({"sku": "MX-700-SLV", "bowl": "5.2 litre stainless steel, dishwasher safe",
                    "attachments_dishwasher_safe": ["flat beater", "dough hook"],
                    "hand_wash_only": ["whisk (aluminium hub)", "pouring shield"], "power_w": 1000,
                    "warranty_years": 5}),
    )]))
    a("The 5.2-litre stainless steel bowl is dishwasher safe, as are the flat beater and dough hook. Wash the "
      "whisk and the pouring shield by hand. The mixer also comes with a 5-year warranty.")
    u("Good to know. What's the warranty process if something breaks?")
    a("You'd register the mixer on our website with its serial number, and for a fault within the warranty "
      "we collect it, repair or replace it, and return it free of charge. Keep your order confirmation as "
      "proof of purchase.")
    u("Will the courier need a signature on Saturday?")
    m.extend(_tool_turn("Checking the delivery requirements.", [(
        _call("track_shipment", carrier="ParcelWing", tracking="PW771904362GB"),
        json.dumps({"signature_required": True, "slot": "2026-12-06 08:00-13:00",
                    "note": "Parcels over 200 GBP need a signature from anyone at the address aged 18+."}),
    )]))
    a("Yes, a signature is needed because the parcel is worth more than 200 pounds, but anyone aged 18 or "
      "over at the address can sign.")
    u("My neighbour can sign then. Can you add a delivery note saying to knock loudly, the bell is broken?")
    m.extend(_tool_turn("Adding the note.", [(
        _call("add_delivery_note", carrier="ParcelWing", tracking="PW771904362GB",
              note="Please knock loudly, the doorbell is broken."),
        json.dumps({"saved": True}),
    )]))
    a("Done, the courier will see: 'Please knock loudly, the doorbell is broken.'")
    u("Thanks. Could you email me a summary of all of this?")
    m.extend(_tool_turn("Sending the summary.", [(
        _call("send_email", to="customer-on-file", subject="Your Brightfield Home requests",
              body="Redelivery on Saturday 6 Dec, morning slot; pasta roller reserved at Hollinsby until 7 Dec 16:00."),
        json.dumps({"sent": True, "to": "p.r***@mailbox.example"}),
    )]))
    a("Sent to the email address on your account. Is there anything else?")
    u("Just to double-check before I go: what was my order number, and which street is it being delivered to?")
    a("Your order number is BH-58213-K, and it is being delivered to Flat 4, 27 Kestrel Lane, Hollinsby.")
    u("And the shipment's tracking number, in case I need to call ParcelWing?")
    a("The tracking number is PW771904362GB.")
    u("Perfect, thank you so much!")
    a("You're welcome, Priya - enjoy the mixer and the pasta roller!")
    return m


PROBES = [
    # (t, question, answer, evidence_step) - evidence steps are fixed after import; see make_scenarios.py
    ("What is the customer's order number?", "BH-58213-K", "get_order"),
    ("Which street is the order delivered to?", "Kestrel Lane", "get_order"),
    ("When was the first delivery attempted?", "2026-11-21", "track_shipment"),
    ("What is the redelivery reference?", "RD-44017", "book_redelivery"),
    ("What is the click-and-collect code?", "CC-90312", "reserve_in_store"),
]
