package dev.zklock.schedules;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import dev.zklock.schedules.History.Hold;

/**
 * The holds a client process has begun and not recorded yet, as it streams them
 * ({@link History.Held}), so that a kill leaves each one ended where its holder's
 * belief ended: at the loss its holder saw, if it saw one before the kill, else at
 * the kill. A hold its process recorded is no longer open.
 */
final class OpenHolds {

	/** Why a hold ended when its process was killed while its holder still believed it held. */
	static final String KILLED = "KILLED";

	// by step, key, token, mode and start: a hold's loss, sent later, replaces its beginning
	private final Map<String, Hold> open = new ConcurrentHashMap<>();

	/**
	 * A hold began, or its holder saw it lost.
	 * @param held the hold, its end not known yet, or ended by the loss its holder saw
	 */
	void held(History.Held held) {
		this.open.put(key(held.hold()), held.hold());
	}

	/**
	 * The process recorded a hold: it is open no more.
	 * @param hold the hold as recorded
	 */
	void recorded(Hold hold) {
		this.open.remove(key(hold));
	}

	/**
	 * End the open holds at a kill: a loss its holder saw before stands, with its
	 * reason; a hold still believed ends at the kill. None is open afterwards.
	 * @param killedAt when the process was killed
	 * @return the holds, ended
	 */
	List<Hold> endAt(long killedAt) {
		List<Hold> ended = new ArrayList<>();
		for (Hold hold : this.open.values()) {
			boolean seen = hold.lost() && hold.end() <= killedAt;
			ended.add(new Hold(hold.chain(), hold.client(), hold.name(), hold.key(), hold.mode(), hold.permits(),
					hold.token(), hold.start(), Math.max(hold.start(), seen ? hold.end() : killedAt), true,
					seen ? hold.reason() : KILLED, hold.heldAtGrant()));
		}
		this.open.clear();
		return ended;
	}

	private static String key(Hold hold) {
		return hold.chain() + "/" + hold.lockKey() + "/" + hold.token() + "/" + hold.mode() + "/" + hold.start();
	}

}
