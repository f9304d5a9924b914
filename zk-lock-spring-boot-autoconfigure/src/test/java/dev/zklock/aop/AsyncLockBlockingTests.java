package dev.zklock.aop;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.blockhound.BlockHound;
import reactor.blockhound.integration.BlockHoundIntegration;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import dev.zklock.annotation.DistributedLock;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * BlockHound watches Reactor's non-blocking threads while they subscribe to
 * contended locked Monos and Fluxes and call locked CompletableFuture methods: no
 * blocking call may happen on them. A deliberate sleep on such a thread is
 * recorded, which shows the check works.
 */
class AsyncLockBlockingTests {

	private static final List<String> blockingCalls = new CopyOnWriteArrayList<>();

	private final ApplicationContextRunner contextRunner = TestZooKeeper.contextRunner()
		.withBean(SlowService.class)
		.withPropertyValues("zk-lock.default-timeout=60s");

	@BeforeAll
	static void installBlockHound() {
		BlockHound.Builder builder = BlockHound.builder();
		// Reactor's integration marks its non-blocking threads
		ServiceLoader.load(BlockHoundIntegration.class).forEach(builder::with);
		builder.blockingMethodCallback((method) -> blockingCalls
				.add(method + " on " + Thread.currentThread().getName() + " at " + where()))
			.install();
	}

	@BeforeEach
	void clear() {
		blockingCalls.clear();
	}

	@Test
	void blockHoundSeesASleepOnAParallelThread() {
		Mono.fromCallable(() -> {
			Thread.sleep(1);
			return "slept";
		}).subscribeOn(Schedulers.parallel()).block(Duration.ofSeconds(10));
		assertThat(blockingCalls).anyMatch((call) -> call.contains("sleep"));
	}

	@Test
	void contendedLocksNeverBlockANonBlockingThread() {
		this.contextRunner.run((context) -> {
			SlowService service = context.getBean(SlowService.class);
			List<Mono<?>> calls = new ArrayList<>();
			for (int i = 0; i < 20; i++) {
				calls.add(Mono.defer(() -> service.mono("k")).subscribeOn(Schedulers.parallel()));
				calls.add(Flux.defer(() -> service.flux("k")).subscribeOn(Schedulers.parallel()).then());
				calls.add(Mono.defer(() -> Mono.fromFuture(service.stage("k"))).subscribeOn(Schedulers.parallel()));
			}
			long start = System.nanoTime();
			Flux.merge(calls).then().block(Duration.ofSeconds(120));
			long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
			// 60 holders one after the other, each holding about 20 ms
			assertThat(millis).isGreaterThanOrEqualTo(60 * 20);
			assertThat(service.maxActive()).isEqualTo(1);
			assertThat(blockingCalls).isEmpty();
		});
	}

	private static String where() {
		StringBuilder frames = new StringBuilder();
		for (StackTraceElement frame : new Throwable().getStackTrace()) {
			if (frame.getClassName().startsWith("dev.zklock") || frame.getClassName().startsWith("org.apache")) {
				frames.append(frame).append(" < ");
			}
		}
		return frames.toString();
	}

	static class SlowService {

		private final AtomicInteger active = new AtomicInteger();

		private final AtomicInteger maxActive = new AtomicInteger();

		public int maxActive() {
			return this.maxActive.get();
		}

		@DistributedLock(name = "slow", key = "#key")
		public Mono<String> mono(String key) {
			return Mono.fromRunnable(this::enter).then(Mono.delay(Duration.ofMillis(20))).doOnTerminate(this::leave)
				.thenReturn("mono");
		}

		@DistributedLock(name = "slow", key = "#key")
		public Flux<Long> flux(String key) {
			return Mono.fromRunnable(this::enter).thenMany(Flux.interval(Duration.ofMillis(10)).take(2))
				.doOnTerminate(this::leave);
		}

		@DistributedLock(name = "slow", key = "#key")
		public CompletableFuture<String> stage(String key) {
			enter();
			return CompletableFuture.supplyAsync(() -> {
				leave();
				return "stage";
			}, CompletableFuture.delayedExecutor(20, TimeUnit.MILLISECONDS));
		}

		private void enter() {
			int now = this.active.incrementAndGet();
			this.maxActive.accumulateAndGet(now, Math::max);
		}

		private void leave() {
			this.active.decrementAndGet();
		}

	}

}
