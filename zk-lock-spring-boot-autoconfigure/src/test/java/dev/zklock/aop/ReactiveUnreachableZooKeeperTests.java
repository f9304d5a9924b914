package dev.zklock.aop;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import dev.zklock.LockException;
import dev.zklock.annotation.DistributedLock;
import dev.zklock.annotation.LockMode;
import dev.zklock.autoconfigure.DistributedLockAutoConfiguration;
import dev.zklock.autoconfigure.ZkLockAutoConfiguration;
import dev.zklock.autoconfigure.ZkLockClient;
import dev.zklock.testsupport.InJvmZooKeeper;
import dev.zklock.testsupport.ZooKeeperProxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code Mono} and {@code Flux} methods keep their timeout while a network drops
 * ZooKeeper's traffic without resetting it, so that Curator still counts the
 * connection as up: every call, in every mode and with several keys, fails by its
 * timeout plus 250 ms, leaves no node once the traffic passes again, and the next
 * call gets its lock.
 */
class ReactiveUnreachableZooKeeperTests {

	private static final Logger logger = LoggerFactory.getLogger(ReactiveUnreachableZooKeeperTests.class);

	private static final Duration SLACK = Duration.ofMillis(250);

	private static final String BASE_PATH = "/reactive-unreachable";

	@Test
	void monoAndFluxMethodsEndByTheirDeadlineWhileTheTrafficIsDropped() throws Exception {
		try (InJvmZooKeeper server = InJvmZooKeeper.builder().start();
				ZooKeeperProxy proxy = ZooKeeperProxy.start("reactive-unreachable", List.of(server.port()))) {
			new ApplicationContextRunner()
				.withConfiguration(
						AutoConfigurations.of(ZkLockAutoConfiguration.class, DistributedLockAutoConfiguration.class))
				.withPropertyValues("zk-lock.connect-string=" + proxy.connectString(), "zk-lock.base-path=" + BASE_PATH)
				.withBean(Reactive.class)
				.run((context) -> {
					Reactive reactive = context.getBean(Reactive.class);
					// every path exists and every code path ran once, so the calls below time ZooKeeper
					for (Mono<String> call : calls(reactive)) {
						assertThat(call.block(Duration.ofSeconds(10))).isNotEmpty();
					}
					proxy.blackhole();
					List<Duration> timeouts = List.of(Duration.ZERO, Duration.ofSeconds(1), Duration.ofSeconds(1),
							Duration.ofSeconds(1), Duration.ofSeconds(1), Duration.ofSeconds(1), Duration.ofSeconds(5));
					List<Mono<String>> calls = calls(reactive);
					List<CompletableFuture<Duration>> timed = new ArrayList<>();
					for (int i = 0; i < calls.size(); i++) {
						timed.add(timed(timeouts.get(i), calls.get(i)));
					}
					CompletableFuture.allOf(timed.toArray(new CompletableFuture<?>[0])).get(30, TimeUnit.SECONDS);
					logger.info("Reactive calls with timeouts {} ended after {} while the traffic was dropped", timeouts,
							timed.stream().map(CompletableFuture::join).toList());
					proxy.pass();
					CuratorFramework client = context.getBean(ZkLockClient.class).getCuratorFramework();
					await().atMost(Duration.ofSeconds(30))
						.until(() -> TestZooKeeper.ephemeralNodes(client, BASE_PATH) == 0);
					for (Mono<String> call : calls(reactive)) {
						assertThat(call.block(Duration.ofSeconds(10))).isNotEmpty();
					}
					assertThat(TestZooKeeper.ephemeralNodes(client, BASE_PATH)).isZero();
				});
		}
	}

	// timeouts 0, 1s (READ, WRITE, SEMAPHORE, two keys, a Flux) and 5s
	private static List<Mono<String>> calls(Reactive reactive) {
		return List.of(reactive.tryOnce("m"), reactive.read("m"), reactive.write("m"), reactive.permit("m"),
				reactive.several(List.of("a", "b")), reactive.stream("f").collectList().map(String::valueOf),
				reactive.patient("m"));
	}

	// Subscribes now; completes with the time taken once the call failed, as it must while nothing is answered
	private static CompletableFuture<Duration> timed(Duration timeout, Mono<String> call) {
		long start = System.nanoTime();
		return call.toFuture().handle((value, ex) -> {
			Duration elapsed = Duration.ofNanos(System.nanoTime() - start);
			assertThat(value).isNull();
			assertThat(ex).isInstanceOf(LockException.class);
			assertThat(elapsed).as("timeout %s", timeout).isLessThanOrEqualTo(timeout.plus(SLACK));
			return elapsed;
		});
	}

	static class Reactive {

		@DistributedLock(name = "mono", key = "#id", timeout = "0")
		public Mono<String> tryOnce(String id) {
			return Mono.just(id);
		}

		@DistributedLock(name = "mono", key = "#id", timeout = "1s", mode = LockMode.READ)
		public Mono<String> read(String id) {
			return Mono.just(id);
		}

		@DistributedLock(name = "mono", key = "#id", timeout = "1s", mode = LockMode.WRITE)
		public Mono<String> write(String id) {
			return Mono.just(id);
		}

		@DistributedLock(name = "mono", key = "#id", timeout = "1s", mode = LockMode.SEMAPHORE, permits = 2)
		public Mono<String> permit(String id) {
			return Mono.just(id);
		}

		@DistributedLock(name = "mono", key = "#ids", timeout = "1s")
		public Mono<String> several(List<String> ids) {
			return Mono.just(String.join(",", ids));
		}

		@DistributedLock(name = "flux", key = "#id", timeout = "1s")
		public Flux<String> stream(String id) {
			return Flux.just(id, id);
		}

		@DistributedLock(name = "mono", key = "#id", timeout = "5s")
		public Mono<String> patient(String id) {
			return Mono.just(id);
		}

	}

}
