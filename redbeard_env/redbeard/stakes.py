"""What Rödskägg's questions cost or gain, in words, computed from the game's ``Rules`` and
the seat's own position -- for the web table's stakes box and the terminal -- and the
question prompts themselves, plus a short rules page of a sheet.

Only what the seat may know goes in: its score and hand, the public table (calls, tricks,
the stock's size, who threw in), and the rules. Part of :mod:`redbeard_env.redbeard.views`.
"""

from __future__ import annotations

from .cards import REDBEARD_LEVEL, SUITS, bid_tricks, card_name, is_face
from .game import is_forced_dealer, legal_bid_levels
from .rules import HAND_SIZE, PENALTY, TRICKS_PER_ROUND, Rules

SUIT_SYMBOL = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}


def card_text(name: str) -> str:
    """A card as people write it: ``AS`` -> ``A♠``, ``TD`` -> ``10♦``."""
    return ("10" if name[0] == "T" else name[0]) + SUIT_SYMBOL[name[1]]


def _plural(k: int, word: str) -> str:
    return f"{k} {word}" if k == 1 else f"{k} {word}s"


def _move(score: int, delta: int) -> str:
    """``+5 (12 → 17)``: a score change and where it takes the score."""
    return f"{delta:+d} ({score} → {score + delta})"


def _call_text(level: int) -> str:
    return "Rödskägg" if level == REDBEARD_LEVEL else f"bid {level}"


# ---------------------------------------------------------------- the prompts
def question(g, seat: int, keys: bool = False) -> str:
    """The question ``seat`` is asked now (``keys``: with the terminal's short answers)."""
    r = g.rules
    k = (lambda text: f" {text}") if keys else (lambda text: "")
    if g.phase == "redeal":
        if r.redeal == "no_face_card":
            return "Your hand has no face card: keep it, or throw it in for a new one?" + k("(k / t)")
        return "Keep your hand, or throw it in for a new one?" + k("(k / t)")
    if g.phase == "look":
        return f"player_{g.thrower} threw in a hand. Look at it?" + k("(y / n)")
    if g.phase == "bid":
        keys_text = k("(a number, r Rödskägg)" if is_forced_dealer(g, seat) else "(a number, p pass, r Rödskägg)")
        if is_forced_dealer(g, seat):
            return "Everyone else passed: as the dealer you must bid (you may not pass)." + keys_text
        if g.high_level >= 0:
            return f"Your call: the highest bid is {_call_text(g.high_level)} (player_{g.declarer})." + keys_text
        return "Your call: nobody has bid yet." + keys_text
    if g.phase == "ask":
        return "You are the declarer: ask the others whether they join, or skip the question?" + k("(a / s)")
    if g.phase == "join":
        return f"Do you join the last {_plural(TRICKS_PER_ROUND - g.tricks_done, 'trick')}, or fold?" + k("(j / f)")
    if g.phase in ("play", "duel"):
        hand = sorted(g.hands[seat])
        example = f", e.g. {card_name(hand[0])}" if hand else ""
        if g.trick:
            led = SUITS[g.trick[0][1] // 13]
            text = f"Your card: follow {SUIT_SYMBOL[led]} if you can."
        else:
            text = "Your lead."
        return text + k(f"(a card{example})")
    return ""


# ---------------------------------------------------------------- the stakes
def stakes(g, seat: int) -> list[dict]:
    """What each answer of ``seat``'s question costs or gains: ``[{"action": name or None,
    "text": ...}]`` (``None``: a note on the whole question), from the rules and the
    seat's position."""
    phase = g.phase
    if g.game_over or g.to_act != seat:
        return []
    if phase == "redeal":
        return _redeal(g, seat)
    if phase == "look":
        return _look(g, seat)
    if phase == "bid":
        return _bid(g, seat)
    if phase == "ask":
        return _ask(g, seat)
    if phase == "join":
        return _join(g, seat)
    if phase in ("play", "duel"):
        return _play(g, seat)
    return []


def _note(text: str) -> dict:
    return {"action": None, "text": text}


def _redeal(g, seat: int) -> list[dict]:
    r, score = g.rules, g.scores[seat]
    stock = len(g.stock)
    out = [{"action": "keep", "text": "Keep: you play these 6 cards."}]
    draw = (f"Throw in: you get {HAND_SIZE} new cards from the stock ({stock} cards left)" if stock >= HAND_SIZE else
            f"Throw in: the stock has only {stock} cards, so the thrown-in hands are shuffled back in; after that "
            "nobody may throw in again this round")
    if r.redeal == "challenge":
        face = any(is_face(c) for c in g.hands[seat])
        risk = (f"your hand holds a face card, so if someone looks you pay {_move(score, PENALTY)}" if face else
                f"your hand has no face card, so whoever looks pays +{PENALTY}; you risk nothing")
        out.append({"action": "redeal", "text": f"{draw}. The others may then look at the thrown-in hand: {risk}."})
        out.append(_note("Under this sheet any hand may be thrown in (the look keeps it honest)."))
    else:
        out.append({"action": "redeal", "text": f"{draw}. It costs nothing; you decide again on the new hand."})
        out.append(_note("Only a hand without a face card (J, Q, K, A) may be thrown in." if r.redeal == "no_face_card"
                         else "Under this sheet any hand may be thrown in."))
    return out


def _look(g, seat: int) -> list[dict]:
    score, thrower = g.scores[seat], g.thrower
    return [
        {"action": "look", "text": f"Look: you see player_{thrower}'s thrown-in hand. If it held no face card you "
                                   f"pay {_move(score, PENALTY)}; if it held one, player_{thrower} pays "
                                   f"+{PENALTY} ({g.scores[thrower]} → {g.scores[thrower] + PENALTY})."},
        {"action": "no_look", "text": "Don't look: nothing happens to you; the next player may look. Only the first "
                                      "who looks sees the hand."},
    ]


def _contract_words(r: Rules, k: int) -> str:
    return f"{'exactly' if r.contract == 'exact' else 'at least'} {_plural(k, 'trick')}"


def _bid(g, seat: int) -> list[dict]:
    r, score = g.rules, g.scores[seat]
    levels = legal_bid_levels(g, seat)
    lead = ("the declarer leads every trick" if r.leader == "declarer" else
            "the declarer leads the first trick, then each trick's winner leads")
    must = "exactly" if r.contract == "exact" else "at least"
    out = [_note(f"The highest bidder is the declarer ({lead}) and must take {must} as many tricks as bid, or pay "
                 f"+{PENALTY}. Every trick you take counts −1.")]
    if is_forced_dealer(g, seat):
        out.append(_note(f"Everyone else passed, so as the dealer you must bid at least {max(r.min_bid, 1)}."))
    else:
        out.append({"action": "pass", "text": f"Pass: no contract for you; each trick you take still counts −1 "
                                              f"(you stand on {score})."})
    for level in levels:
        name = "redbeard" if level == REDBEARD_LEVEL else f"bid:{level}"
        if level == REDBEARD_LEVEL:
            win = ("you win the game at once" if r.redbeard_success == "win"
                   else f"your score is set to 0 ({score} → 0)")
            lose = ("you are out of the game" if r.redbeard_fail == "eliminate"
                    else f"you pay +{PENALTY} like any failed contract")
            out.append({"action": name, "text": f"Rödskägg: take all 6 tricks and {win}; miss one and {lose}."})
            continue
        over = bid_tricks(level) > score
        extra = (f" Bidding over your score costs +{PENALTY} at once ({score} → {score + PENALTY})."
                 if over and r.bid_over_score == "penalty" else "")
        made = score - level + (PENALTY if over and r.bid_over_score == "penalty" else 0)
        if level == 0:
            text = f"Bid 0: take no trick (score stays {score}); any trick costs +{PENALTY} on top."
        else:
            text = (f"Bid {level}: take {_contract_words(r, level)} → {score} → {made}"
                    f"{' or lower' if r.contract == 'at_least' else ''}; otherwise +{PENALTY} on top of the tricks.")
        out.append({"action": name, "text": text + extra})
    if r.bid_over_score == "forbid" and any(bid_tricks(lv) > score for lv in range(r.min_bid, r.max_bid + 1)):
        out.append(_note(f"Bids above your score ({score}) are not allowed on this sheet."))
    if r.zero_rule == "immediate":
        out.append(_note("Reaching exactly 0 at any moment wins the game at once."))
    return out


def _ask(g, seat: int) -> list[dict]:
    r, score = g.rules, g.scores[seat]
    left = TRICKS_PER_ROUND - g.tricks_done
    who = "everyone but you" if r.may_fold == "all_but_declarer" else "the players without a trick"
    jv, jfp = r.joiner_trick_value, r.joiner_fail_penalty
    join_terms = (f"a trickless player who joins counts each trick {jv} point{'s' if jv != 1 else ''}"
                  + (f" and pays +{jfp} if they take none" if jfp else ""))
    out = [{"action": "ask", "text": f"Ask: {who} may fold (sit out the last {_plural(left, 'trick')}) or join; "
                                     f"{join_terms}. It costs you nothing."},
           {"action": "skip", "text": (f"Skip: nobody may fold and nobody counts as a joiner; you pay the forget "
                                       f"penalty now: {_move(score, r.forget_penalty)}." if r.forget_penalty else
                                       "Skip: nobody may fold and nobody counts as a joiner; it costs nothing here.")}]
    if r.zero_trick_penalty:
        out.append(_note(f"Either way, anyone still in who ends the round without a trick pays +{r.zero_trick_penalty}."))
    return out


def _join(g, seat: int) -> list[dict]:
    r, score = g.rules, g.scores[seat]
    left = TRICKS_PER_ROUND - g.tricks_done
    trickless = g.tricks[seat] == 0
    if trickless:
        jv = r.joiner_trick_value
        fail = r.joiner_fail_penalty + r.zero_trick_penalty
        text = (f"Join: each trick you take counts {jv} ({score} → {score - jv} for one)"
                + (f"; take none and you pay {_move(score, fail)}" if fail else "; taking none costs nothing")
                + ".")
        if r.zero_rule == "bounce" and score - jv < 0:
            text += " Tricks past 0 bounce back up (this sheet's bounce rule)."
    else:
        text = "Join: you already have a trick, so yours count 1 each as usual."
    return [{"action": "join", "text": text},
            {"action": "fold", "text": f"Fold: you sit out the last {_plural(left, 'trick')}; your score stays {score}."}]


def _play(g, seat: int) -> list[dict]:
    r, score = g.rules, g.scores[seat]
    if g.phase == "duel":
        return [_note("Duel: whoever takes the most of the 6 tricks wins the game.")]
    value = r.joiner_trick_value if g.joiner[seat] else 1
    out = []
    if g.bounced[seat]:
        out.append(_note(f"You reached 0 this round: each further trick adds {value} ({score} → {score + value})."))
    else:
        out.append(_note(f"Each trick you take counts −{value} ({score} → {score - value})."
                         + (" Reaching 0 bounces: later tricks add." if r.zero_rule == "bounce" else "")))
    if seat == g.declarer:
        need = bid_tricks(g.calls[seat]) - g.tricks[seat]
        call = _call_text(g.calls[seat])
        if g.calls[seat] == REDBEARD_LEVEL:
            out.append(_note(f"You called Rödskägg: every trick must be yours ({g.tricks[seat]} so far)."))
        elif need > 0:
            out.append(_note(f"You {call}: {_plural(need, 'more trick')} to make it, else +{PENALTY}."))
        elif need == 0:
            out.append(_note(f"You {call} and have it" + (": one more trick fails the contract (+5)."
                                                          if r.contract == "exact" else ".")))
        elif r.contract == "exact":
            out.append(_note(f"You {call} and took more: the contract has failed (+{PENALTY} at the end)."))
    elif g.joiner[seat] and g.tricks[seat] == 0 and r.joiner_fail_penalty:
        out.append(_note(f"You joined: no trick by the end costs +{r.joiner_fail_penalty}."))
    return out


# ---------------------------------------------------------------- a sheet's rules in words
def rules_page(r: Rules) -> list[dict]:
    """A short rules page of a sheet: ``[{"title", "text"}]`` from its ``Rules``."""
    redeal = {"off": "No redeals.",
              "no_face_card": "A hand without a face card (J, Q, K, A) may be thrown in for 6 new cards from the stock.",
              "any": "Any hand may be thrown in for 6 new cards from the stock.",
              "challenge": f"Any hand may be thrown in for 6 new cards. The others may then look at it, in turn: if it "
                           f"held no face card the looker pays +{PENALTY}, otherwise the thrower does."}[r.redeal]
    auction = ("Everyone calls once, left of the dealer first, dealer last." if r.auction == "single" else
               "Calling goes round until all but the highest bidder have passed; a pass is final.")
    all_pass = ("If everyone else passes, the dealer must bid." if r.all_pass == "dealer_must_bid" else
                "If everyone passes, the next dealer deals again.")
    over = {"allow": "", "penalty": f" Bidding above your own score costs +{PENALTY} at once.",
            "forbid": " You may not bid above your own score."}[r.bid_over_score]
    fold = "everyone but the declarer" if r.may_fold == "all_but_declarer" else "the players without a trick"
    joins = (f"When {r.join_at} tricks remain the declarer asks who joins (or skips the question for "
             f"+{r.forget_penalty}); {fold} may fold. A joiner's tricks count {r.joiner_trick_value} each"
             + (f"; a joiner without a trick pays +{r.joiner_fail_penalty}." if r.joiner_fail_penalty else ".")
             + (" On exactly 1 point you may not fold." if r.one_point_must_join else "")) if r.join_at else \
        "There is no join question."
    zero = {"exact_end": "Whoever stands on exactly 0 after a round's scoring wins.",
            "immediate": "Whoever reaches exactly 0 at any moment wins at once.",
            "bounce": "Once you reach 0 in a round, further tricks add points instead; stand on 0 after the round "
                      "to win."}[r.zero_rule]
    rb_win = "wins the game at once" if r.redbeard_success == "win" else "sets your score to 0"
    rb_fail = "puts you out of the game" if r.redbeard_fail == "eliminate" else f"costs +{PENALTY}"
    end = zero + " Several on 0 play a duel (6 cards, most tricks wins)."
    if r.eliminate_at is not None:
        end += f" At {r.eliminate_at} points or more you are out."
    penalties = [f"failed contract +{PENALTY}"]
    if r.zero_trick_penalty:
        penalties.append(f"staying in without a trick +{r.zero_trick_penalty}")
    return [
        {"title": "Goal", "text": f"Everyone starts on {r.start_score} points. Tricks lower your score, penalties "
                                  "raise it. Stand on exactly 0 to win."},
        {"title": "Deal", "text": f"6 cards each from 52, no trumps. {redeal}"},
        {"title": "Bidding", "text": f"Bid {r.min_bid}–{r.max_bid} tricks or Rödskägg (all 6). {auction} {all_pass}"
                                     f"{over} The declarer must take {'exactly' if r.contract == 'exact' else 'at least'}"
                                     f" the bid. Rödskägg made {rb_win}; failed it {rb_fail}."},
        {"title": "Play", "text": "Follow suit if you can; the highest card of the led suit wins. "
                                  + ("The declarer leads every trick." if r.leader == "declarer"
                                     else "The declarer leads first, then each trick's winner.")},
        {"title": "Joining", "text": joins},
        {"title": "Scoring", "text": "Each trick −1 at once. Penalties: " + ", ".join(penalties) + "."},
        {"title": "The end", "text": end},
    ]


# ---------------------------------------------------------------- why a move is not allowed
def why_illegal(g, seat: int, name: str) -> str:
    """Why the move ``name`` is not allowed for ``seat`` now, in words ("" if no reason is
    known): a card not held or not following suit, a bid that does not beat the highest or
    is over the score, a pass the dealer may not make, an answer to another question."""
    from .cards import BID0, PASS, action_id, bid_level_of_action, suit_of

    try:
        action = action_id(name)
    except ValueError:
        return ""
    now = question(g, seat)
    if action < 52:
        if g.phase not in ("play", "duel"):
            return f"this is not the time to play a card: {now}"
        if action not in g.hands[seat]:
            return f"you do not hold {card_text(card_name(action))}"
        if g.trick:
            led = suit_of(g.trick[0][1])
            follow = sorted(c for c in g.hands[seat] if suit_of(c) == led)
            if follow and suit_of(action) != led:
                return f"you must follow {SUIT_SYMBOL[SUITS[led]]}: " + ", ".join(card_text(card_name(c)) for c in follow)
        return ""
    if action == PASS or BID0 <= action <= REDBEARD_LEVEL + BID0:
        if g.phase != "bid":
            return f"this is not the time to bid: {now}"
        if action == PASS:
            return "everyone else passed, so as the dealer you must bid" if is_forced_dealer(g, seat) else ""
        level = bid_level_of_action(action)
        r = g.rules
        if level <= g.high_level:
            return f"a bid must beat the highest bid ({_call_text(g.high_level)})"
        if level != REDBEARD_LEVEL and not r.min_bid <= level <= r.max_bid:
            return f"bids go from {r.min_bid} to {r.max_bid} (or Rödskägg) on this sheet"
        if r.bid_over_score == "forbid" and bid_tricks(level) > g.scores[seat]:
            return f"bids above your score ({g.scores[seat]}) are not allowed on this sheet"
        return ""
    return f"that answers another question: {now}"
