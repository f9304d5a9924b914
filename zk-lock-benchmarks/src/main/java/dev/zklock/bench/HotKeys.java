package dev.zklock.bench;

import java.time.Duration;

import dev.zklock.LockRequest;
import dev.zklock.LockTemplate;
import dev.zklock.annotation.LockMode;
import dev.zklock.core.CuratorLockManager;

/**
 * The hot-key rows' locks (issue #31): requests with local hand-off
 * ({@code LockRequest.Builder.localHandoff(true)}) on the one contended key, run
 * through zk-lock's {@link LockTemplate} as an application would, and the tenure
 * bounds of a run, set on the lock manager as the
 * {@code zk-lock.local-handoff.*} properties would, so that one fork can sweep them.
 */
final class HotKeys {

	/**
	 * The lock name of the contended hot-key rows.
	 */
	static final String NAME = "hot";

	/**
	 * The bounds the engine starts with: 16 passes, 50 ms.
	 */
	static final String DEFAULT_LIMITS = "16/50";

	private static final Duration TIMEOUT = Duration.ofSeconds(60);

	private HotKeys() {
	}

	/**
	 * A request with local hand-off on the contended key.
	 * @param name the lock name
	 * @param mode MUTEX, READ or WRITE
	 * @return the request
	 */
	static LockRequest request(String name, LockMode mode) {
		return LockRequest.named(name).keys(LockFixture.CONTENDED_KEY).mode(mode).localHandoff(true).timeout(TIMEOUT)
			.build();
	}

	/**
	 * Hold the lock through the template while the probe marks its arrival and its
	 * release.
	 * @param template the template
	 * @param request the request
	 * @param probe the probe
	 */
	static void hold(LockTemplate template, LockRequest request, HandoffProbe probe) {
		template.execute(request, () -> {
			probe.acquired();
			probe.releasing();
			return Boolean.TRUE;
		});
	}

	/**
	 * Bound the tenures of a lock manager.
	 * @param manager the manager
	 * @param limits {@code <max-passes>/<max-time in ms>}, with {@code max} for no
	 * bound on the passes
	 */
	static void limit(CuratorLockManager manager, String limits) {
		String[] parts = limits.split("/");
		int passes = parts[0].equals("max") ? Integer.MAX_VALUE : Integer.parseInt(parts[0]);
		manager.setLocalHandoffLimits(passes, Duration.ofMillis(Long.parseLong(parts[1])));
	}

}
