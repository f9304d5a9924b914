package dev.zklock.aop;

import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.zklock.LockDeadlockException;
import dev.zklock.LockException;
import dev.zklock.annotation.DistributedLock;
import dev.zklock.annotation.OnTimeout;
import dev.zklock.autoconfigure.ZkLockObservationAutoConfiguration;
import dev.zklock.core.LockPaths;
import dev.zklock.metrics.LockObservations;
import dev.zklock.testsupport.TestThreads;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code @DistributedLock} methods nested in opposite orders by two threads: the
 * victim's {@link LockDeadlockException} is no timeout, so {@code onTimeout = SKIP}
 * does not swallow it and a {@code fallbackMethod} receives it; the other thread's
 * call completes once the victim's outer lock goes. The victim is made the newest
 * wait: its inner call starts once the other's wait is published. With
 * observations, the victim's carries an event {@code zk.lock.deadlock} naming the
 * cycle, and a handler that fails on it changes nothing for the callers.
 */
class DistributedLockDeadlockTests {

	private final ApplicationContextRunner contextRunner = TestZooKeeper.contextRunner()
		.withUserConfiguration(ServiceConfiguration.class)
		.withPropertyValues("zk-lock.deadlock-detection.after=200ms");

	private final TestThreads threads = new TestThreads("nesting");

	@AfterEach
	void stopThreads() {
		this.threads.close();
	}

	@Test
	void skipOnTimeoutDoesNotSwallowTheDeadlock() {
		this.contextRunner.run((context) -> {
			NestingService service = context.getBean(NestingService.class);
			Crossing crossing = cross(context, () -> service.stockSkipping("1", () -> "ran"));
			assertThat(crossing.victim().get(30, TimeUnit.SECONDS)).isInstanceOf(LockDeadlockException.class);
			assertThat(crossing.other().get(30, TimeUnit.SECONDS)).isEqualTo("ran orders");
		});
	}

	@Test
	void aFallbackMethodReceivesTheDeadlock() {
		this.contextRunner.run((context) -> {
			NestingService service = context.getBean(NestingService.class);
			Crossing crossing = cross(context, () -> service.stockWithFallback("1", () -> "ran"));
			assertThat(crossing.victim().get(30, TimeUnit.SECONDS)).isEqualTo("fallback");
			assertThat(service.fallbackCause()).isInstanceOf(LockDeadlockException.class)
				.hasMessageStartingWith("Deadlock detected: this wait for lock 'stock' key '1' (MUTEX)");
			assertThat(crossing.other().get(30, TimeUnit.SECONDS)).isEqualTo("ran orders");
		});
	}

	@Test
	void theVictimsObservationHasAnEventNamingTheCycle() {
		EventHandler handler = new EventHandler(false);
		observedCrossing(handler, false, (service, victim) -> {
			assertThat(victim).isInstanceOf(LockDeadlockException.class);
			assertThat(handler.events).singleElement().satisfies((event) -> {
				assertThat(event.getName()).isEqualTo(LockObservations.DEADLOCK_EVENT);
				assertThat(event.getContextualName())
					.startsWith("Deadlock on lock 'stock' key '1' (MUTEX), this wait ended to break the cycle: ")
					.contains("waits for 'stock' key '1' (MUTEX); ")
					.contains("holds 'stock' key '1' (MUTEX); ")
					.contains("waits for 'orders' key '1' (MUTEX); ")
					.endsWith("holds 'orders' key '1' (MUTEX)");
			});
		});
	}

	@Test
	void aHandlerThatFailsOnTheEventLeavesTheCallsAsTheyWere() {
		EventHandler handler = new EventHandler(true);
		observedCrossing(handler, true, (service, victim) -> {
			assertThat(victim).isEqualTo("fallback");
			assertThat(service.fallbackCause()).isInstanceOf(LockDeadlockException.class);
			assertThat(handler.failures).hasSize(1);
			assertThat(handler.stops).as("observations stopped despite the failure").hasValue(4);
		});
	}

	// The crossing with observations, the victim's inner call skipping or with a fallback; the other call completes
	private void observedCrossing(EventHandler handler, boolean fallback, VictimCheck check) {
		observed(handler).run((context) -> {
			NestingService service = context.getBean(NestingService.class);
			Crossing crossing = cross(context, fallback ? () -> service.stockWithFallback("1", () -> "ran")
					: () -> service.stockSkipping("1", () -> "ran"));
			Object victim = crossing.victim().get(30, TimeUnit.SECONDS);
			assertThat(crossing.other().get(30, TimeUnit.SECONDS)).isEqualTo("ran orders");
			check.check(service, victim);
		});
	}

	/**
	 * What a test checks of the victim's call once both calls ended.
	 */
	@FunctionalInterface
	interface VictimCheck {

		void check(NestingService service, Object victim) throws Exception;

	}

	private ApplicationContextRunner observed(EventHandler handler) {
		return this.contextRunner.withConfiguration(AutoConfigurations.of(ZkLockObservationAutoConfiguration.class))
			.withBean(ObservationRegistry.class, () -> {
				ObservationRegistry registry = ObservationRegistry.create();
				registry.observationConfig().observationHandler(handler);
				return registry;
			});
	}

	/**
	 * Keeps the events of every observation and the observations stopped; fails on
	 * each event when told to.
	 */
	static final class EventHandler implements ObservationHandler<Observation.Context> {

		private final boolean fail;

		private final List<Observation.Event> events = new CopyOnWriteArrayList<>();

		private final List<Observation.Event> failures = new CopyOnWriteArrayList<>();

		private final AtomicInteger stops = new AtomicInteger();

		EventHandler(boolean fail) {
			this.fail = fail;
		}

		@Override
		public boolean supportsContext(Observation.Context context) {
			return true;
		}

		@Override
		public void onEvent(Observation.Event event, Observation.Context context) {
			if (this.fail) {
				this.failures.add(event);
				throw new IllegalStateException("a handler that fails on " + event.getName());
			}
			this.events.add(event);
		}

		@Override
		public void onStop(Observation.Context context) {
			this.stops.incrementAndGet();
		}

	}

	/**
	 * How the two nested calls ended.
	 *
	 * @param victim what the call holding "orders" returned, or threw
	 * @param other what the call holding "stock" returned
	 */
	record Crossing(CompletableFuture<Object> victim, CompletableFuture<Object> other) {

	}

	// One thread holds "stock" and asks for "orders"; once that wait is published, another holding "orders" asks for
	// "stock" through `victimInner`, the newest wait of the cycle
	private Crossing cross(ApplicationContext context, Callable<Object> victimInner) throws Exception {
		NestingService service = context.getBean(NestingService.class);
		CountDownLatch bothHold = new CountDownLatch(2);
		CountDownLatch victimAsks = new CountDownLatch(1);
		CompletableFuture<Object> other = call(() -> service.stock("1", () -> {
			bothHold.countDown();
			bothHold.await(30, TimeUnit.SECONDS);
			return service.orders("1", () -> "ran orders");
		}));
		CompletableFuture<Object> victim = call(() -> service.orders("1", () -> {
			bothHold.countDown();
			victimAsks.await(30, TimeUnit.SECONDS);
			return victimInner.call();
		}));
		String waits = HotKeyRound.manager(context).getBasePath() + "/" + LockPaths.WAITS;
		CuratorFramework client = context.getBean(CuratorFramework.class);
		await().atMost(HotKeyRound.WAIT)
			.until(() -> client.checkExists().forPath(waits) != null && client.getChildren().forPath(waits).size() == 1);
		victimAsks.countDown();
		return new Crossing(victim, other);
	}

	// What the call returned, or the exception it threw
	private CompletableFuture<Object> call(Callable<Object> body) {
		return CompletableFuture.supplyAsync(() -> {
			try {
				return body.call();
			}
			catch (Exception ex) {
				return ex;
			}
		}, this.threads);
	}

	@Configuration(proxyBeanMethods = false)
	static class ServiceConfiguration {

		@Bean
		NestingService nestingService() {
			return new NestingService();
		}

	}

	static class NestingService {

		private final AtomicReference<LockException> fallbackCause = new AtomicReference<>();

		// through the proxy, whose own fields are unset
		LockException fallbackCause() {
			return this.fallbackCause.get();
		}

		@DistributedLock(name = "orders", key = "#key", timeout = "8s")
		public Object orders(String key, Callable<Object> body) throws Exception {
			return body.call();
		}

		@DistributedLock(name = "stock", key = "#key", timeout = "8s")
		public Object stock(String key, Callable<Object> body) throws Exception {
			return body.call();
		}

		@DistributedLock(name = "stock", key = "#key", timeout = "8s", onTimeout = OnTimeout.SKIP)
		public Object stockSkipping(String key, Callable<Object> body) throws Exception {
			return body.call();
		}

		@DistributedLock(name = "stock", key = "#key", timeout = "8s", fallbackMethod = "stockFallback")
		public Object stockWithFallback(String key, Callable<Object> body) throws Exception {
			return body.call();
		}

		Object stockFallback(String key, Callable<Object> body, LockException cause) {
			this.fallbackCause.set(cause);
			return "fallback";
		}

	}

}
