package dev.zklock.aop;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
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
 * connection as up: every call, in every mode, with several keys and as a Flux, with
 * timeouts 0, 1 s and 5 s (one application each), fails by its timeout plus 250 ms,
 * leaves no node once the traffic passes again, and the next call gets its lock.
 */
class ReactiveUnreachableZooKeeperTests {

	private static final Logger logger = LoggerFactory.getLogger(ReactiveUnreachableZooKeeperTests.class);

	private static final Duration SLACK = Duration.ofMillis(250);

	private static final String BASE_PATH = "/reactive-unreachable";

	@Test
	void monoAndFluxMethodsEndByTheirDeadlineWhileTheTrafficIsDropped() throws Exception {
		try (InJvmZooKeeper server = InJvmZooKeeper.builder().start();
				ZooKeeperProxy proxy = ZooKeeperProxy.start("reactive-unreachable", List.of(server.port()))) {
			// one application per timeout, each with its own client through the proxy, all cut off at once
			runner(proxy, "0").run((zero) -> runner(proxy, "1s").run((one) -> runner(proxy, "5s").run((five) -> {
				Map<Duration, Reactive> applications = Map.of(Duration.ZERO, zero.getBean(Reactive.class),
						Duration.ofSeconds(1), one.getBean(Reactive.class), Duration.ofSeconds(5),
						five.getBean(Reactive.class));
				// every path exists and every code path ran once, so the calls below time ZooKeeper
				for (Reactive reactive : applications.values()) {
					for (Mono<String> call : calls(reactive)) {
						assertThat(call.block(Duration.ofSeconds(10))).isNotEmpty();
					}
				}
				proxy.blackhole();
				Map<Duration, List<CompletableFuture<Duration>>> timed = new TreeMap<>();
				applications.forEach((timeout, reactive) -> timed.put(timeout,
						calls(reactive).stream().map((call) -> timed(timeout, call)).toList()));
				for (List<CompletableFuture<Duration>> calls : timed.values()) {
					CompletableFuture.allOf(calls.toArray(new CompletableFuture<?>[0])).get(30, TimeUnit.SECONDS);
				}
				timed.forEach((timeout, calls) -> logger.info(
						"Reactive calls with timeout {} ended after {} while the traffic was dropped", timeout,
						calls.stream().map(CompletableFuture::join).toList()));
				proxy.pass();
				for (AssertableApplicationContext context : List.of(zero, one, five)) {
					CuratorFramework client = context.getBean(ZkLockClient.class).getCuratorFramework();
					await().atMost(Duration.ofSeconds(30))
						.until(() -> TestZooKeeper.ephemeralNodes(client, BASE_PATH) == 0);
				}
				for (Mono<String> call : calls(applications.get(Duration.ofSeconds(5)))) {
					assertThat(call.block(Duration.ofSeconds(10))).isNotEmpty();
				}
			})));
		}
	}

	private static ApplicationContextRunner runner(ZooKeeperProxy proxy, String timeout) {
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(ZkLockAutoConfiguration.class, DistributedLockAutoConfiguration.class))
			.withPropertyValues("zk-lock.connect-string=" + proxy.connectString(), "zk-lock.base-path=" + BASE_PATH,
					"reactive.timeout=" + timeout)
			.withBean(Reactive.class);
	}

	// every mode, two keys and a Flux
	private static List<Mono<String>> calls(Reactive reactive) {
		return List.of(reactive.mutex("m"), reactive.read("m"), reactive.write("m"), reactive.permit("m"),
				reactive.several(List.of("a", "b")), reactive.stream("f").collectList().map(String::valueOf));
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

		@DistributedLock(name = "mutex", key = "#id", timeout = "${reactive.timeout}")
		public Mono<String> mutex(String id) {
			return Mono.just(id);
		}

		@DistributedLock(name = "rw", key = "#id", timeout = "${reactive.timeout}", mode = LockMode.READ)
		public Mono<String> read(String id) {
			return Mono.just(id);
		}

		@DistributedLock(name = "rw", key = "#id", timeout = "${reactive.timeout}", mode = LockMode.WRITE)
		public Mono<String> write(String id) {
			return Mono.just(id);
		}

		@DistributedLock(name = "pool", key = "#id", timeout = "${reactive.timeout}", mode = LockMode.SEMAPHORE,
				permits = 2)
		public Mono<String> permit(String id) {
			return Mono.just(id);
		}

		@DistributedLock(name = "multi", key = "#ids", timeout = "${reactive.timeout}")
		public Mono<String> several(List<String> ids) {
			return Mono.just(String.join(",", ids));
		}

		@DistributedLock(name = "flux", key = "#id", timeout = "${reactive.timeout}")
		public Flux<String> stream(String id) {
			return Flux.just(id, id);
		}

	}

}
