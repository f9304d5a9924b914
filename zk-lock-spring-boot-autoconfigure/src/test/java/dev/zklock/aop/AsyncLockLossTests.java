package dev.zklock.aop;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import reactor.core.publisher.Mono;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ApplicationContext;

import dev.zklock.LockContext;
import dev.zklock.LockLossReason;
import dev.zklock.LockLostEvent;
import dev.zklock.LockLostException;
import dev.zklock.annotation.DistributedLock;
import dev.zklock.annotation.LockMode;
import dev.zklock.aop.DistributedLockSafetyTests.LostEvents;
import dev.zklock.autoconfigure.ZkLockMetricsAutoConfiguration;
import dev.zklock.core.AsyncLockManager;
import dev.zklock.metrics.LockMetrics;
import dev.zklock.testsupport.ZooKeeperSessions;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * A lock lost while asynchronous work runs, against a real ZooKeeper server whose
 * session for the client is expired: the work sees the loss through its
 * {@link LockContext}, the returned future or Mono fails (THROW) or completes with
 * an error logged (LOG), a {@link LockLostEvent} is published and counted, and no
 * node is left behind.
 */
@ExtendWith(OutputCaptureExtension.class)
class AsyncLockLossTests {

	private static final Duration WAIT = Duration.ofSeconds(30);

	private final ExecutorService gates = Executors.newSingleThreadExecutor();

	private final ApplicationContextRunner contextRunner = TestZooKeeper.contextRunner()
		.withConfiguration(AutoConfigurations.of(ZkLockMetricsAutoConfiguration.class))
		.withBean(SimpleMeterRegistry.class, SimpleMeterRegistry::new)
		.withBean(LostEvents.class)
		.withBean(Ledger.class)
		.withPropertyValues("zk-lock.default-timeout=30s");

	@AfterEach
	void stopGates() {
		this.gates.shutdownNow();
	}

	@Test
	void futureFailsWithLockLostException() {
		this.contextRunner.run((context) -> {
			CompletableFuture<String> call = callWhileSessionExpires(context, "f-1", Ledger::post);
			assertThatExceptionOfType(ExecutionException.class).isThrownBy(() -> call.get(30, TimeUnit.SECONDS))
				.havingCause()
				.isInstanceOf(LockLostException.class)
				.withMessageContaining(Ledger.class.getName() + ".post(String, CompletableFuture)")
				.withMessageContaining("'f-1'")
				.withMessageContaining("zk-lock.lost-lock-action=LOG");
			assertLossReported(context, "f-1");
		});
	}

	@Test
	void monoFailsWithLockLostException() {
		this.contextRunner.run((context) -> {
			CompletableFuture<String> call = callWhileSessionExpires(context, "m-1",
					(ledger, key, gate) -> ledger.postMono(key, gate).toFuture());
			assertThatExceptionOfType(ExecutionException.class).isThrownBy(() -> call.get(30, TimeUnit.SECONDS))
				.havingCause()
				.isInstanceOf(LockLostException.class)
				.withMessageContaining(Ledger.class.getName() + ".postMono(String, CompletableFuture)")
				.withMessageContaining("'m-1'");
			assertLossReported(context, "m-1");
		});
	}

	@Test
	void logActionCompletesNormallyAndLogsTheLoss(CapturedOutput output) {
		this.contextRunner.withPropertyValues("zk-lock.lost-lock-action=LOG").run((context) -> {
			CompletableFuture<String> future = callWhileSessionExpires(context, "l-1", Ledger::post);
			assertThat(future.get(30, TimeUnit.SECONDS)).isEqualTo("posted l-1");
			assertLossReported(context, "l-1");
			CompletableFuture<String> mono = callWhileSessionExpires(context, "l-2",
					(ledger, key, gate) -> ledger.postMono(key, gate).toFuture());
			assertThat(mono.get(30, TimeUnit.SECONDS)).isEqualTo("posted l-2");
			assertThat(output).containsPattern("ERROR .*Asynchronous lock 'ledger' key 'l-1' was lost \\(SESSION_LOST\\)")
				.containsPattern("ERROR .*Asynchronous lock 'ledger' key 'l-2' was lost \\(SESSION_LOST\\)")
				.contains("Ledger.post(String, CompletableFuture) completed after its lock was no longer held; "
						+ "keeping its result because zk-lock.lost-lock-action=LOG");
		});
	}

	/**
	 * Start the call, expire the session once the lock is held, wait until the
	 * work's lock context reports the loss, then let the work complete.
	 */
	private CompletableFuture<String> callWhileSessionExpires(ApplicationContext context, String key, Call call)
			throws Exception {
		Ledger ledger = context.getBean(Ledger.class);
		CuratorFramework client = context.getBean(CuratorFramework.class);
		CompletableFuture<String> gate = new CompletableFuture<>();
		CompletableFuture<String> result = call.start(ledger, key, gate);
		await().atMost(WAIT).until(() -> ledger.contexts().size() == ledger.seen().size() + 1);
		LockContext lock = ledger.contexts().get(ledger.contexts().size() - 1);
		assertThat(lock.isHeld()).isTrue();
		assertThat(TestZooKeeper.ephemeralNodes(client, basePath(context))).isOne();
		ZooKeeperSessions.expire(client);
		LostEvents lost = context.getBean(LostEvents.class);
		await().atMost(WAIT).until(() -> lost.events.stream().anyMatch((event) -> key.equals(event.getKey())));
		assertThat(lock.isHeld()).isFalse();
		this.gates.execute(() -> gate.complete(key));
		await().atMost(WAIT).until(() -> ledger.seen().size() == ledger.contexts().size());
		return result;
	}

	private void assertLossReported(ApplicationContext context, String key) throws Exception {
		Ledger ledger = context.getBean(Ledger.class);
		Seen seen = ledger.seen().get(ledger.seen().size() - 1);
		assertThat(seen.held()).isFalse();
		assertThat(seen.failure()).isInstanceOf(LockLostException.class)
			.hasMessageContaining("Lock 'ledger' key '" + key + "'")
			.hasMessageContaining("was lost (SESSION_LOST)");
		AsyncLockManager manager = context.getBean(AsyncLockManager.class);
		List<LockLostEvent> events = context.getBean(LostEvents.class).events;
		assertThat(events).filteredOn((event) -> key.equals(event.getKey())).singleElement().satisfies((event) -> {
			assertThat(event.getLockName()).isEqualTo("ledger");
			assertThat(event.getMode()).isEqualTo(LockMode.MUTEX);
			assertThat(event.getFencingToken()).isPositive();
			assertThat(event.getThreadName()).isEqualTo("async");
			assertThat(event.getReason()).isEqualTo(LockLossReason.SESSION_LOST);
			assertThat(event.getSource()).isSameAs(manager);
		});
		MeterRegistry meters = context.getBean(MeterRegistry.class);
		assertThat(meters.get(LockMetrics.LOST)
			.tags("name", "ledger", "mode", "mutex", "reason", "session_lost")
			.counter()
			.count()).isEqualTo(events.size());
		CuratorFramework client = context.getBean(CuratorFramework.class);
		await().atMost(WAIT).until(() -> manager.snapshot().isEmpty());
		assertThat(TestZooKeeper.ephemeralNodes(client, basePath(context))).isZero();
		await().atMost(WAIT).until(() -> meters.get(LockMetrics.ACTIVE).tag("name", "ledger").gauge().value() == 0);
	}

	private static String basePath(ApplicationContext context) {
		return context.getEnvironment().getProperty("zk-lock.base-path");
	}

	@FunctionalInterface
	interface Call {

		CompletableFuture<String> start(Ledger ledger, String key, CompletableFuture<String> gate);

	}

	/**
	 * What the work saw of its lock when it went on after the loss.
	 */
	record Seen(boolean held, Throwable failure) {

		static Seen of(LockContext lock) {
			boolean held = lock.isHeld();
			try {
				lock.assertHeld();
				return new Seen(held, null);
			}
			catch (LockLostException ex) {
				return new Seen(held, ex);
			}
		}

	}

	static class Ledger {

		final List<LockContext> contexts = new CopyOnWriteArrayList<>();

		final List<Seen> seen = new CopyOnWriteArrayList<>();

		public List<LockContext> contexts() {
			return this.contexts;
		}

		public List<Seen> seen() {
			return this.seen;
		}

		@DistributedLock(name = "ledger", key = "#key")
		public CompletableFuture<String> post(String key, CompletableFuture<String> gate) {
			LockContext lock = LockContext.current();
			this.contexts.add(lock);
			return gate.thenApply((value) -> {
				this.seen.add(Seen.of(lock));
				return "posted " + value;
			});
		}

		@DistributedLock(name = "ledger", key = "#key")
		public Mono<String> postMono(String key, CompletableFuture<String> gate) {
			return Mono.deferContextual((reactorContext) -> {
				LockContext lock = reactorContext.get(LockContext.class);
				this.contexts.add(lock);
				return Mono.fromFuture(gate).map((value) -> {
					this.seen.add(Seen.of(lock));
					return "posted " + value;
				});
			});
		}

	}

}
