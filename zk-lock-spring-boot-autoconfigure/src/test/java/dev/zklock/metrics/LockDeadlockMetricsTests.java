package dev.zklock.metrics;

import java.time.Instant;
import java.util.List;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import dev.zklock.LockDeadlock;
import dev.zklock.LockDeadlock.Edge;
import dev.zklock.LockDeadlock.LockRef;
import dev.zklock.LockDeadlock.Party;
import dev.zklock.annotation.LockMode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNoException;

/**
 * {@value LockDeadlockMetrics#DEADLOCKS} counts each deadlock under the name of the
 * lock its victim waited for, and a registry that refuses the counter fails
 * nothing: the victim's call has failed with its exception already, the others go
 * on.
 */
class LockDeadlockMetricsTests {

	private static final Party VICTIM = new Party("orders", "host-a", 4711, 0x1000a2b3c4d0005L,
			"http-nio-8080-exec-3");

	private static final Party OTHER = new Party("orders", "host-b", 902, 0x2000a2b3c4d0007L, "worker-2");

	@Test
	void eachDeadlockCountsUnderTheLockItsVictimWaitedFor() {
		MeterRegistry registry = new SimpleMeterRegistry();
		LockDeadlockMetrics metrics = new LockDeadlockMetrics(registry);
		metrics.deadlockResolved(deadlock("stock", "orders"));
		metrics.deadlockResolved(deadlock("stock", "orders"));
		metrics.deadlockResolved(deadlock("orders", "stock"));
		assertThat(registry.get(LockDeadlockMetrics.DEADLOCKS).tag("name", "stock").counter().count()).isEqualTo(2);
		assertThat(registry.get(LockDeadlockMetrics.DEADLOCKS).tag("name", "orders").counter().count()).isOne();
	}

	@Test
	void aRegistryThatRefusesTheCounterFailsNothing() {
		MeterRegistry refusing = LockMetricsTests.failingRegistry();
		LockDeadlockMetrics metrics = new LockDeadlockMetrics(refusing);
		assertThatNoException().isThrownBy(() -> metrics.deadlockResolved(deadlock("stock", "orders")));
		assertThat(refusing.find(LockDeadlockMetrics.DEADLOCKS).meters()).isEmpty();
	}

	// The victim waits for `waited` held by the other party, which waits for `held` held by the victim
	private static LockDeadlock deadlock(String waited, String held) {
		LockRef waitedFor = new LockRef(waited, "7", LockMode.MUTEX);
		LockRef heldByVictim = new LockRef(held, "1", LockMode.MUTEX);
		return new LockDeadlock(Instant.parse("2026-12-02T14:03:12.611Z"), VICTIM,
				List.of(new Edge(VICTIM, waitedFor, OTHER, waitedFor), new Edge(OTHER, heldByVictim, VICTIM, heldByVictim)));
	}

}
