package dev.zklock.schedules;

import java.util.HashMap;
import java.util.Map;

/**
 * A resource that takes a write only with a token at least as large as the largest
 * it has taken for that key, as the documentation tells users to build one
 * ({@code fence <= ?}). Every decision goes into the history.
 */
class FencedStore {

	private final Map<String, Long> largest = new HashMap<>();

	private final History history;

	FencedStore(History history) {
		this.history = history;
	}

	/**
	 * Take a write, or refuse it.
	 * @param chain the writer's step
	 * @param lockKey the lock and key
	 * @param token the writer's token of that key
	 * @return whether the store took it
	 */
	synchronized boolean write(int chain, String lockKey, long token) {
		long known = this.largest.getOrDefault(lockKey, Long.MIN_VALUE);
		boolean accepted = token >= known;
		if (accepted) {
			this.largest.put(lockKey, token);
		}
		this.history.write(new History.Write(chain, lockKey, token, System.nanoTime(), accepted));
		return accepted;
	}

}
