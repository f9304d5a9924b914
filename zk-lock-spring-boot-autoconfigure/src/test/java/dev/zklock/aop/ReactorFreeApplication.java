package dev.zklock.aop;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.curator.framework.CuratorFramework;
import reactor.core.publisher.Mono;

import org.springframework.boot.Banner;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.util.ClassUtils;

import dev.zklock.annotation.DistributedLock;
import dev.zklock.testsupport.JvmProcess;

import static org.awaitility.Awaitility.await;

/**
 * A Spring Boot application for {@link ReactorAbsentTests}, run in a {@link JvmProcess}
 * whose class path has neither reactor-core nor reactive-streams, nor any Kotlin jar. It first checks that
 * Reactor is really absent (so the test cannot pass in a JVM that has it), then locks
 * two overlapping calls of a {@code CompletableFuture} method on one key and checks
 * that the second waits for the first's future. It prints one {@code RESULT ok ...}
 * line and exits with 0, or prints the failure and exits with 1.
 * <p>
 * Arguments: {@code --zk-lock.connect-string=...} and {@code --zk-lock.base-path=...}.
 */
@SpringBootConfiguration(proxyBeanMethods = false)
@EnableAutoConfiguration
public class ReactorFreeApplication {

	private static final String LOCK_NAME = "reactor-free";

	private static final Duration WAIT = Duration.ofSeconds(20);

	private static final String MONO_LOCKED = ReactorFreeApplication.class.getName() + "$MonoLocked";

	@Bean
	FutureLocked futureLocked() {
		return new FutureLocked();
	}

	public static void main(String[] args) {
		long started = System.nanoTime();
		try {
			requireReactorAbsent();
			String monoMethod = monoMethodFailure();
			SpringApplication application = new SpringApplication(ReactorFreeApplication.class);
			application.setWebApplicationType(WebApplicationType.NONE);
			application.setBannerMode(Banner.Mode.OFF);
			application.setDefaultProperties(Map.of("spring.docker.compose.enabled", "false"));
			String result;
			try (ConfigurableApplicationContext context = application.run(args)) {
				long startupMs = millisSince(started);
				String basePath = context.getEnvironment().getRequiredProperty("zk-lock.base-path");
				result = "maxActive=" + checkOneKey(context, basePath) + " controlMaxActive="
						+ checkTwoKeys(context.getBean(FutureLocked.class)) + " monoMethod=" + monoMethod
						+ " startupMs=" + startupMs;
			}
			System.out.println("RESULT ok " + result + " totalMs=" + millisSince(started));
			System.exit(0);
		}
		catch (Throwable ex) {
			System.out.println("RESULT failed " + ex);
			ex.printStackTrace(System.out);
			System.exit(1);
		}
	}

	/**
	 * Fail unless this JVM lacks Reactor, both as Spring and as zk-lock see it.
	 */
	private static void requireReactorAbsent() {
		for (String type : List.of("reactor.core.publisher.Mono", "org.reactivestreams.Publisher", "kotlin.Unit",
				"kotlinx.coroutines.Job")) {
			if (ClassUtils.isPresent(type, null)) {
				throw new IllegalStateException(type + " is on the class path of this JVM, so this run proves nothing: "
						+ "launch it with JvmProcess.Builder.classPathWithout(\"reactor-core\", \"reactive-streams\", "
						+ "\"kotlin\")");
			}
		}
		String supported = AsyncReturnType.describeSupported();
		if (!supported.contains("with reactor-core on the class path")) {
			throw new IllegalStateException("zk-lock thinks Reactor is present; it supports " + supported);
		}
	}

	/**
	 * A {@code @DistributedLock} method returning {@code Mono} cannot even be introspected
	 * here, so no bean can declare one: the Mono and Flux support is out of play.
	 */
	private static String monoMethodFailure() {
		try {
			Class.forName(MONO_LOCKED, false, ReactorFreeApplication.class.getClassLoader()).getDeclaredMethods();
		}
		catch (NoClassDefFoundError | ClassNotFoundException ex) {
			if (!String.valueOf(ex.getMessage()).contains("reactor/core/publisher/Mono")) {
				throw new IllegalStateException("Expected the missing class to be Mono, got " + ex, ex);
			}
			return ex.getClass().getSimpleName();
		}
		throw new IllegalStateException("A method returning Mono could be introspected: Reactor is present");
	}

	/**
	 * Two calls on one key: the second must start only after the first's future has
	 * completed.
	 */
	private static int checkOneKey(ConfigurableApplicationContext context, String basePath) throws Exception {
		FutureLocked locked = context.getBean(FutureLocked.class);
		CuratorFramework client = context.getBean(CuratorFramework.class);
		CompletableFuture<String> gate = new CompletableFuture<>();
		CompletableFuture<String> first = locked.run("order-1", "first", gate);
		locked.awaitStarts(1);
		CompletableFuture<String> second = locked.run("order-1", "second", CompletableFuture.completedFuture("second"));
		// the second call has queued its own lock node behind the first's
		await("the second call's lock node").atMost(WAIT)
			.until(() -> TestZooKeeper.ephemeralNodes(client, basePath) == 2);
		require(!second.isDone() && locked.events().equals(List.of("start first")),
				"the second call ran while the first held the lock: " + locked.events());
		gate.complete("first");
		require("first".equals(first.get(WAIT.toSeconds(), TimeUnit.SECONDS)), "first result " + first);
		require("second".equals(second.get(WAIT.toSeconds(), TimeUnit.SECONDS)), "second result " + second);
		List<String> expected = List.of("start first", "end first", "start second", "end second");
		require(locked.events().equals(expected), "calls overlapped: " + locked.events() + ", expected " + expected);
		require(locked.maxActive() == 1, "maxActive " + locked.maxActive());
		int held = TestZooKeeper.ephemeralNodes(client, basePath);
		require(held == 0, held + " lock node(s) left under " + basePath + " after both futures completed");
		return locked.maxActive();
	}

	/**
	 * Control: calls on two keys do overlap, so the counter can see an overlap.
	 */
	private static int checkTwoKeys(FutureLocked locked) throws Exception {
		CompletableFuture<String> gate = new CompletableFuture<>();
		CompletableFuture<String> holder = locked.run("order-2", "holder", gate);
		locked.awaitStarts(3);
		String other = locked.run("order-3", "other", CompletableFuture.completedFuture("other"))
			.get(WAIT.toSeconds(), TimeUnit.SECONDS);
		gate.complete("holder");
		require("other".equals(other) && "holder".equals(holder.get(WAIT.toSeconds(), TimeUnit.SECONDS)),
				"results on two keys: " + locked.events());
		require(locked.maxActive() == 2, "two keys should overlap, maxActive " + locked.maxActive());
		return locked.maxActive();
	}

	private static void require(boolean condition, String message) {
		if (!condition) {
			throw new IllegalStateException(message);
		}
	}

	private static long millisSince(long nanos) {
		return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - nanos);
	}

	/**
	 * A bean whose locked method counts the calls whose futures are still pending.
	 */
	public static class FutureLocked {

		private final List<String> events = new CopyOnWriteArrayList<>();

		private final AtomicInteger maxActive = new AtomicInteger();

		private final AtomicInteger active = new AtomicInteger();

		private final AtomicInteger starts = new AtomicInteger();

		/**
		 * Runs once the lock on the key is held; the lock is released when the gate
		 * completes.
		 * @param key the key
		 * @param label the name of the call in the events
		 * @param gate the work the call returns
		 * @return the work, ended by counting the call as finished
		 */
		@DistributedLock(name = LOCK_NAME, key = "#key", timeout = "30s")
		public CompletableFuture<String> run(String key, String label, CompletableFuture<String> gate) {
			this.events.add("start " + label);
			this.maxActive.accumulateAndGet(this.active.incrementAndGet(), Math::max);
			this.starts.incrementAndGet();
			return gate.whenComplete((result, failure) -> {
				this.active.decrementAndGet();
				this.events.add("end " + label);
			});
		}

		/**
		 * The starts and ends of the calls, in order (read through the proxy, hence a
		 * method).
		 * @return the events
		 */
		public List<String> events() {
			return List.copyOf(this.events);
		}

		/**
		 * The most calls pending at once.
		 * @return the count
		 */
		public int maxActive() {
			return this.maxActive.get();
		}

		/**
		 * Wait until the given number of calls have started.
		 * @param count the number of calls
		 */
		public void awaitStarts(int count) {
			await("locked call " + count + " to start").atMost(WAIT).until(() -> this.starts.get() >= count);
		}

	}

	/**
	 * A bean Reactor-free applications cannot have: its method returns {@code Mono}.
	 */
	static class MonoLocked {

		@DistributedLock(name = LOCK_NAME, key = "'mono'")
		Mono<String> run() {
			return Mono.empty();
		}

	}

}
