package dev.zklock.actuate;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import dev.zklock.LockDeadlockException;
import dev.zklock.LockHandle;
import dev.zklock.LockManager;
import dev.zklock.LockRequest;
import dev.zklock.actuate.DeadlockDescriptor.EdgeDescriptor;
import dev.zklock.aop.TestZooKeeper;
import dev.zklock.autoconfigure.LocksEndpointAutoConfiguration;
import dev.zklock.autoconfigure.ZkLockMetricsAutoConfiguration;
import dev.zklock.metrics.LockDeadlockMetrics;
import dev.zklock.testsupport.TestThreads;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A deadlock the auto-configured lock manager ends shows in {@code /actuator/locks}
 * ({@code deadlocks}: when, the victim, every edge), as many as
 * {@code zk-lock.deadlock-detection.history}, newest first, and counts in
 * {@value LockDeadlockMetrics#DEADLOCKS} under the name of the lock the victim
 * waited for, its acquisition with the outcome {@code deadlock}. Two threads of one
 * application nest "orders" and "stock" in opposite orders.
 */
class DeadlockEndpointTests {

	private static final Duration INNER_TIMEOUT = Duration.ofSeconds(8);

	private final ApplicationContextRunner contextRunner = TestZooKeeper.contextRunner()
		.withConfiguration(AutoConfigurations.of(LocksEndpointAutoConfiguration.class, EndpointAutoConfiguration.class,
				ZkLockMetricsAutoConfiguration.class))
		.withBean(SimpleMeterRegistry.class, SimpleMeterRegistry::new)
		.withPropertyValues("management.endpoints.web.exposure.include=locks", "spring.application.name=orders",
				"zk-lock.deadlock-detection.after=200ms");

	private final TestThreads threads = new TestThreads("crossing");

	@AfterEach
	void stopThreads() {
		this.threads.close();
	}

	@Test
	void theEndpointShowsTheCycleAndItsVictimAndTheCounterCountsIt() {
		this.contextRunner.run((context) -> {
			LocksEndpoint endpoint = context.getBean(LocksEndpoint.class);
			assertThat(endpoint.locks().deadlocks()).isEmpty();
			LockDeadlockException failure = cross(context.getBean(LockManager.class));
			List<DeadlockDescriptor> deadlocks = endpoint.locks().deadlocks();
			assertThat(deadlocks).singleElement().satisfies((deadlock) -> {
				assertThat(deadlock.detectedAt()).isEqualTo(failure.getDeadlock().detectedAt());
				assertThat(deadlock.victim().app()).isEqualTo("orders");
				assertThat(deadlock.victim().thread()).isEqualTo(failure.getDeadlock().victim().thread());
				assertThat(deadlock.edges()).hasSize(2);
				EdgeDescriptor first = deadlock.edges().get(0);
				assertThat(first.waiter()).isEqualTo(deadlock.victim());
				assertThat(first.holds()).isEqualTo(first.waitsFor());
				assertThat(List.of(first.waitsFor().name(), deadlock.edges().get(1).waitsFor().name()))
					.containsExactlyInAnyOrder("orders", "stock");
				assertThat(first.waitsFor().key()).isEqualTo("1");
				assertThat(first.waitsFor().mode()).isEqualTo("MUTEX");
			});
			JsonNode json = new ObjectMapper().valueToTree(endpoint.locks()).get("deadlocks").get(0);
			assertThat(json.get("victim").get("thread").asString()).isEqualTo(deadlocks.get(0).victim().thread());
			assertThat(json.get("edges").get(1).get("holder").get("app").asString()).isEqualTo("orders");
			assertThat(context.getBean(MeterRegistry.class)
				.get(LockDeadlockMetrics.DEADLOCKS)
				.tag("name", failure.getDeadlock().victimWaitsFor().name())
				.counter()
				.count()).isOne();
			// the victim's acquisition, timed with its own outcome
			assertThat(context.getBean(MeterRegistry.class)
				.get("zk.lock.acquire")
				.tags("name", failure.getDeadlock().victimWaitsFor().name(), "outcome", "deadlock")
				.timer()
				.count()).isOne();
		});
	}

	@Test
	void theHistoryKeepsTheNewestDeadlocksOnly() {
		this.contextRunner.withPropertyValues("zk-lock.deadlock-detection.history=1").run((context) -> {
			LocksEndpoint endpoint = context.getBean(LocksEndpoint.class);
			cross(context.getBean(LockManager.class));
			LockDeadlockException newest = cross(context.getBean(LockManager.class));
			assertThat(endpoint.locks().deadlocks()).singleElement()
				.satisfies((deadlock) -> assertThat(deadlock.detectedAt())
					.isEqualTo(newest.getDeadlock().detectedAt()));
			assertThat(context.getBean(MeterRegistry.class)
				.get(LockDeadlockMetrics.DEADLOCKS)
				.counters()
				.stream()
				.mapToDouble(Counter::count)
				.sum()).isEqualTo(2.0);
		});
	}

	// Two threads each hold one lock, then ask for the other's: one fails with the deadlock, the other gets it
	private LockDeadlockException cross(LockManager manager) throws Exception {
		CountDownLatch bothHold = new CountDownLatch(2);
		List<CompletableFuture<Throwable>> failures = new ArrayList<>();
		failures.add(nest(manager, "orders", "stock", bothHold));
		failures.add(nest(manager, "stock", "orders", bothHold));
		List<Throwable> failed = new ArrayList<>();
		for (CompletableFuture<Throwable> failure : failures) {
			Throwable ex = failure.get(30, TimeUnit.SECONDS);
			if (ex != null) {
				failed.add(ex);
			}
		}
		assertThat(failed).singleElement().isInstanceOf(LockDeadlockException.class);
		return (LockDeadlockException) failed.get(0);
	}

	// Completes with what the inner acquisition failed with, null once it got the lock
	private CompletableFuture<Throwable> nest(LockManager manager, String outer, String inner,
			CountDownLatch bothHold) {
		return CompletableFuture.supplyAsync(() -> {
			try (LockHandle held = manager.acquire(LockRequest.named(outer).keys("1").build())) {
				bothHold.countDown();
				assertThat(bothHold.await(30, TimeUnit.SECONDS)).isTrue();
				try (LockHandle nested = manager.acquire(LockRequest.named(inner).keys("1")
					.timeout(INNER_TIMEOUT)
					.build())) {
					assertThat(nested.isAcquired()).as("the other wait goes on once the victim's lock goes").isTrue();
					return null;
				}
			}
			catch (LockDeadlockException ex) {
				return ex;
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return ex;
			}
		}, this.threads);
	}

}
