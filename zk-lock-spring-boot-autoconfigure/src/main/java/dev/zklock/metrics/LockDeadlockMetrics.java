package dev.zklock.metrics;

import java.util.Objects;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.zklock.LockDeadlock;
import dev.zklock.LockDeadlockListener;
import dev.zklock.core.LockPaths;

/**
 * Counts the deadlocks this process ended in {@value #DEADLOCKS}, tagged with the
 * name of the lock the victim waited for: one per deadlock, the instance of its
 * victim counts it. A failing registry never fails the victim's call, which has
 * failed with its {@code LockDeadlockException} already.
 */
public class LockDeadlockMetrics implements LockDeadlockListener {

	/**
	 * Counter of the deadlocks ended by failing one wait of this process.
	 */
	public static final String DEADLOCKS = "zk.lock.deadlocks";

	private static final Logger logger = LoggerFactory.getLogger(LockDeadlockMetrics.class);

	private final MeterRegistry registry;

	/**
	 * Create a new instance.
	 * @param registry where the counter is registered
	 */
	public LockDeadlockMetrics(MeterRegistry registry) {
		this.registry = Objects.requireNonNull(registry, "registry must not be null");
	}

	@Override
	public void deadlockResolved(LockDeadlock deadlock) {
		LockDeadlock.LockRef waitsFor = deadlock.victimWaitsFor();
		try {
			Counter.builder(DEADLOCKS)
				.description("Deadlocks ended by failing one wait of this process with a LockDeadlockException")
				.tag("name", waitsFor.name())
				.register(this.registry)
				.increment();
		}
		catch (RuntimeException ex) {
			logger.warn("Could not count the deadlock on lock '{}' key '{}' in {}", waitsFor.name(),
					LockPaths.abbreviate(waitsFor.key()), DEADLOCKS, ex);
		}
	}

}
