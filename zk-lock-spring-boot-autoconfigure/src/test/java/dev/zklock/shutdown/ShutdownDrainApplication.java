package dev.zklock.shutdown;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.curator.framework.CuratorFramework;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanFactoryPostProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.config.DestructionAwareBeanPostProcessor;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;

import org.springframework.boot.Banner;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.event.ContextClosedEvent;
import org.springframework.context.event.EventListener;
import org.springframework.core.env.Environment;
import org.springframework.core.task.TaskExecutor;
import org.springframework.scheduling.TaskScheduler;
import org.springframework.scheduling.annotation.Async;
import org.springframework.scheduling.annotation.EnableAsync;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

import dev.zklock.LockContext;
import dev.zklock.LockHandle;
import dev.zklock.LockLostEvent;
import dev.zklock.LockRequest;
import dev.zklock.annotation.DistributedLock;
import dev.zklock.autoconfigure.ZkLockClient;
import dev.zklock.LockManager;
import dev.zklock.testsupport.ParentWatchdog;

/**
 * A Spring Boot application for {@link GracefulShutdownTests}, in one of two roles.
 * As the <em>worker</em> ({@code --work=...}) it runs one locked job, of the kind
 * named (an HTTP request, {@code @Scheduled}, {@code @Async}, a
 * {@code CompletableFuture} completed on Boot's executor or on a thread of its
 * own, a {@code Mono} whose work runs on Reactor's {@code boundedElastic}
 * scheduler, or {@code @Async} across a restart of the context in the same JVM), and
 * prints what happens with wall-clock microseconds: {@code START}, {@code CLOSING}
 * (the context began to close), {@code END},
 * {@code LOST}, {@code HELD_FALSE}, {@code INTERRUPTED}, {@code RESULT} and
 * {@code CLIENT_CLOSING}. As the <em>probe</em> ({@code --probe}) it tries the same
 * lock once every 20 ms after each {@code probe <id>} command and prints
 * {@code PROBE_GOT <id> <micros>} when it gets it. With {@code --control} the
 * worker runs without zk-lock's shutdown drain.
 */
@SpringBootConfiguration(proxyBeanMethods = false)
@EnableAutoConfiguration
@EnableAsync
@EnableScheduling
public class ShutdownDrainApplication {

	static final String LOCK = "job";

	static final String KEY = "k";

	// one run per JVM, also across a restart of the context
	private static final AtomicBoolean started = new AtomicBoolean();

	// when the first context began to close (System.nanoTime()), 0 until then: the job runs on from there
	private static final AtomicLong closing = new AtomicLong();

	@Bean
	Jobs jobs(Environment environment) {
		return new Jobs(environment.getProperty("work-millis", Long.class, 1000L));
	}

	@Bean
	Recorder recorder() {
		return new Recorder();
	}

	@Bean
	static DestructionAwareBeanPostProcessor clientClosingRecorder() {
		return new DestructionAwareBeanPostProcessor() {
			@Override
			public Object postProcessAfterInitialization(Object bean, String beanName) {
				if (bean instanceof ZkLockClient || bean instanceof TaskExecutor) {
					print("CREATED " + now() + " " + beanName);
				}
				return bean;
			}

			@Override
			public void postProcessBeforeDestruction(Object bean, String beanName) {
				if (bean instanceof ZkLockClient || bean instanceof CuratorFramework) {
					print("CLIENT_CLOSING " + now() + " " + beanName);
				}
				else if (bean instanceof TaskExecutor) {
					print("EXECUTOR_DESTROYING " + now() + " " + beanName);
				}
			}
		};
	}

	public static void main(String[] args) throws Exception {
		List<String> arguments = List.of(args);
		if (arguments.contains("--probe")) {
			Probe.run(args);
			return;
		}
		run(args);
		// a restart, as DevTools does: close the context and start a new one in this JVM
		if (ParentWatchdog.commands().take().equals("restart")) {
			print("RESTARTING " + now());
			current.close();
			run(args);
			print("RESTARTED " + now());
		}
	}

	private static volatile ConfigurableApplicationContext current;

	private static void run(String[] args) {
		SpringApplication application = new SpringApplication(ShutdownDrainApplication.class);
		application.setBannerMode(Banner.Mode.OFF);
		List<String> arguments = List.of(args);
		boolean web = arguments.contains("--work=http");
		application.setWebApplicationType(web ? WebApplicationType.SERVLET : WebApplicationType.NONE);
		Map<String, Object> defaults = new HashMap<>();
		defaults.put("spring.docker.compose.enabled", "false");
		defaults.put("server.port", "0");
		defaults.put("server.address", "127.0.0.1");
		defaults.put("zk-lock.default-timeout", "30s");
		application.setDefaultProperties(defaults);
		if (arguments.contains("--control")) {
			application.addInitializers((context) -> context.addBeanFactoryPostProcessor(new WithoutDrain()));
		}
		current = application.run(args);
	}

	static String now() {
		Instant now = Instant.now();
		return Long.toString(ChronoUnit.MICROS.between(Instant.EPOCH, now));
	}

	static void print(String line) {
		System.out.println(line);
		System.out.flush();
	}

	/**
	 * Starts the job once the application is ready, except for HTTP (the test
	 * calls) and {@code @Scheduled} (the scheduler does).
	 */
	static final class Recorder {

		@EventListener
		void ready(ApplicationReadyEvent event) {
			Environment environment = event.getApplicationContext().getEnvironment();
			String work = environment.getProperty("work", "");
			print("READY " + now() + " port=" + environment.getProperty("local.server.port", "0"));
			if (List.of("scheduled", "http", "probe").contains(work) || !started.compareAndSet(false, true)) {
				return;
			}
			Jobs jobs = event.getApplicationContext().getBean(Jobs.class);
			switch (work) {
				case "async", "refresh" -> jobs.runAsync();
				case "future-boot" -> report(jobs.runOnExecutor(event.getApplicationContext().getBean(
						"applicationTaskExecutor", TaskExecutor.class)));
				case "future-own" -> report(jobs.runOnOwnThread());
				case "mono" -> report(jobs.runReactive().toFuture());
				default -> throw new IllegalArgumentException("Unknown --work=" + work);
			}
		}

		@EventListener
		void closing(ContextClosedEvent event) {
			if (closing.compareAndSet(0, System.nanoTime())) {
				print("CLOSING " + now());
			}
		}

		@EventListener
		void lost(LockLostEvent event) {
			print("LOST " + now() + " reason=" + event.getReason() + " token=" + event.getFencingToken());
		}

		private static void report(CompletableFuture<String> result) {
			result.whenComplete((value, ex) -> print("RESULT " + now() + " "
					+ ((ex == null) ? "ok" : "failed " + unwrap(ex).getClass().getSimpleName())));
		}

		private static Throwable unwrap(Throwable ex) {
			return (ex instanceof CompletionException && ex.getCause() != null) ? ex.getCause() : ex;
		}

	}

	/**
	 * The locked work, one method per kind of caller.
	 */
	static class Jobs {

		private final long workMillis;

		Jobs(long workMillis) {
			this.workMillis = workMillis;
		}

		@Async
		@DistributedLock(name = LOCK, key = "'" + KEY + "'", timeout = "30s")
		public void runAsync() {
			work();
		}

		@DistributedLock(name = LOCK, key = "'" + KEY + "'", timeout = "30s")
		public String runForRequest() {
			work();
			return "done";
		}

		@DistributedLock(name = LOCK, key = "'" + KEY + "'", timeout = "30s")
		public CompletableFuture<String> runOnExecutor(TaskExecutor executor) {
			LockContext context = LockContext.current();
			return CompletableFuture.supplyAsync(() -> {
				work(context);
				return "done";
			}, executor);
		}

		@DistributedLock(name = LOCK, key = "'" + KEY + "'", timeout = "30s")
		public CompletableFuture<String> runOnOwnThread() {
			LockContext context = LockContext.current();
			CompletableFuture<String> result = new CompletableFuture<>();
			Thread thread = new Thread(() -> {
				work(context);
				result.complete("done");
			}, "own-worker");
			thread.start();
			return result;
		}

		// the lock is in the Reactor context; the work runs on Reactor's boundedElastic scheduler
		@DistributedLock(name = LOCK, key = "'" + KEY + "'", timeout = "30s")
		public Mono<String> runReactive() {
			return Mono.deferContextual((reactorContext) -> {
				LockContext context = reactorContext.get(LockContext.class);
				return Mono.fromCallable(() -> {
					work(context);
					return "done";
				}).subscribeOn(Schedulers.boundedElastic());
			});
		}

		void work() {
			work(LockContext.current());
		}

		// Runs until work-millis after the context began to close, so that it always overlaps the shutdown
		// however late the SIGTERM comes, watching isHeld(); an interrupt ends it early
		private void work(LockContext context) {
			print("START " + now() + " token=" + context.fencingToken() + " thread=" + Thread.currentThread());
			// a run the test never stops ends after a minute
			long end = System.nanoTime() + 60_000_000_000L;
			boolean held = true;
			while (System.nanoTime() < end) {
				long closedAt = closing.get();
				if (closedAt != 0) {
					end = Math.min(end, closedAt + this.workMillis * 1_000_000);
				}
				boolean heldNow = context.isHeld();
				if (heldNow != held) {
					print((heldNow ? "HELD_TRUE " : "HELD_FALSE ") + now());
					held = heldNow;
				}
				try {
					Thread.sleep(5);
				}
				catch (InterruptedException ex) {
					print("INTERRUPTED " + now());
					break;
				}
			}
			print("END " + now() + " held=" + context.isHeld());
		}

	}

	@Bean
	@ConditionalOnProperty(name = "work", havingValue = "scheduled")
	ScheduledJob scheduledJob(Jobs jobs) {
		return new ScheduledJob(jobs);
	}

	/**
	 * The {@code @Scheduled} case: runs once, soon after the start.
	 */
	static class ScheduledJob {

		private final Jobs jobs;

		ScheduledJob(Jobs jobs) {
			this.jobs = jobs;
		}

		@Scheduled(initialDelay = 300, fixedDelay = 3_600_000)
		@DistributedLock(name = LOCK, key = "'" + KEY + "'", timeout = "30s")
		public void run() {
			if (started.compareAndSet(false, true)) {
				this.jobs.work();
			}
		}

	}

	/**
	 * The one way in for the HTTP case; a member of the configuration, so registered
	 * with it.
	 */
	@RestController
	static class WorkController {

		private final Jobs jobs;

		WorkController(Jobs jobs) {
			this.jobs = jobs;
		}

		@GetMapping("/work")
		String work() {
			return this.jobs.runForRequest();
		}

	}

	/**
	 * With {@code inject-scheduler} or {@code inject-executor}, a bean of the
	 * application that injects Boot's scheduler or executor: created before zk-lock's
	 * client, which is an auto-configured bean, they are destroyed after it.
	 */
	@Bean
	static Object earlyTaskBeans(Environment environment, ObjectProvider<TaskScheduler> scheduler,
			BeanFactory beanFactory) {
		List<Object> injected = new ArrayList<>();
		if (Boolean.parseBoolean(environment.getProperty("inject-scheduler"))) {
			injected.add(scheduler.getObject());
		}
		if (Boolean.parseBoolean(environment.getProperty("inject-executor"))) {
			injected.add(beanFactory.getBean("applicationTaskExecutor"));
		}
		return new EarlyTaskBeans(injected);
	}

	record EarlyTaskBeans(List<Object> injected) {

	}

	/**
	 * The control: the same application without zk-lock's shutdown drain.
	 */
	static final class WithoutDrain implements BeanFactoryPostProcessor {

		// after the auto-configurations have registered their beans
		@Override
		public void postProcessBeanFactory(ConfigurableListableBeanFactory beanFactory) {
			((BeanDefinitionRegistry) beanFactory).removeBeanDefinition("zkLockDrainLifecycle");
		}

	}

	/**
	 * The other instance: tries the job's lock once every 20 ms, after each
	 * {@code probe <id>} command, until it gets it.
	 */
	static final class Probe {

		static void run(String[] args) throws Exception {
			SpringApplication application = new SpringApplication(ShutdownDrainApplication.class);
			application.setBannerMode(Banner.Mode.OFF);
			application.setWebApplicationType(WebApplicationType.NONE);
			application.setDefaultProperties(Map.of("spring.docker.compose.enabled", "false", "work", "probe"));
			try (ConfigurableApplicationContext context = application.run(args)) {
				LockManager locks = context.getBean(LockManager.class);
				print("PROBE_READY " + now());
				while (true) {
					String command = ParentWatchdog.commands().take();
					if (!command.startsWith("probe ")) {
						return;
					}
					String id = command.substring("probe ".length());
					print("PROBING " + id + " " + now());
					while (true) {
						try (LockHandle handle = locks
							.acquire(LockRequest.named(LOCK).keys(KEY).timeout(Duration.ZERO).build())) {
							if (handle.isAcquired()) {
								print("PROBE_GOT " + id + " " + now() + " token=" + handle.fencingToken());
								break;
							}
						}
						Thread.sleep(20);
					}
				}
			}
		}

	}

}
