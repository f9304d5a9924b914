package dev.zklock.shedlock;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.spring.annotation.EnableSchedulerLock;
import net.javacrumbs.shedlock.spring.annotation.SchedulerLock;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

import dev.zklock.aop.WorkerApplications;
import dev.zklock.autoconfigure.DistributedLockAutoConfiguration;
import dev.zklock.autoconfigure.ZkLockAutoConfiguration;
import dev.zklock.faults.WorkerEvents;
import dev.zklock.shedlock.autoconfigure.ZkLockShedLockAutoConfiguration;

/**
 * Main class of an application JVM with {@code @EnableSchedulerLock} and a
 * {@code @Scheduled(fixedRate = 200)} task of some 50 ms under
 * {@code @SchedulerLock(lockAtLeastFor = "PT0.15S")}. Each run is reported as
 * {@code @@ run id= start= end= asked=} in {@link System#nanoTime()}, which is
 * CLOCK_MONOTONIC on Linux and so comparable across the JVMs of one machine, where
 * {@code asked} is when its lock was asked for ({@link TimedLockProvider}); its
 * start is reported first as {@code @@ started id=}. With {@code --control=true} the
 * provider is a {@link LocalLockProvider}, which excludes nothing across JVMs.
 * Arguments: {@code --id=}, {@code --connect=}, {@code --base-path=},
 * {@code --control=}.
 */
public final class SchedulerLockWorker {

	private SchedulerLockWorker() {
	}

	public static void main(String[] args) throws Exception {
		Map<String, String> arguments = WorkerApplications.arguments(args);
		String id = arguments.get("id");
		Map<String, Object> properties = WorkerApplications.properties(arguments, arguments.get("base-path"));
		properties.put("worker.control", arguments.get("control"));
		ConfigurableApplicationContext context = WorkerApplications.builder(WorkerConfiguration.class, properties)
			.run();
		WorkerApplications.serve(context, id, (command) -> {
		});
	}

	@Configuration(proxyBeanMethods = false)
	@EnableScheduling
	@EnableSchedulerLock(defaultLockAtMostFor = "PT10S")
	@ImportAutoConfiguration({ ZkLockAutoConfiguration.class, DistributedLockAutoConfiguration.class,
			ZkLockShedLockAutoConfiguration.class })
	static class WorkerConfiguration {

		@Bean
		Task task(@Value("${spring.application.name}") String id) {
			return new Task(id);
		}

		@Bean
		@ConditionalOnBooleanProperty("worker.control")
		LockProvider localLockProvider() {
			return new LocalLockProvider();
		}

		@Bean
		static BeanPostProcessor timedLockProvider() {
			return new BeanPostProcessor() {

				@Override
				public Object postProcessAfterInitialization(Object bean, String beanName) {
					return (bean instanceof LockProvider provider) ? new TimedLockProvider(provider) : bean;
				}

			};
		}

	}

	/**
	 * The task under ShedLock.
	 */
	public static class Task {

		private final String id;

		public Task(String id) {
			this.id = id;
		}

		@Scheduled(fixedRate = 200)
		@SchedulerLock(name = "tick", lockAtLeastFor = "PT0.15S")
		public void tick() throws InterruptedException {
			long start = System.nanoTime();
			long asked = TimedLockProvider.askedAt();
			WorkerEvents.emit("started", "id", this.id, "start", start, "asked", asked);
			// the task's work
			Thread.sleep(50);
			WorkerEvents.emit("run", "id", this.id, "start", start, "end", System.nanoTime(), "asked", asked);
		}

	}

	/**
	 * Notes when the scheduler's thread asked for the lock it then got: the grant
	 * comes after that, and the task's first line may come well after the grant on a
	 * busy machine, so the gap between two grants, which {@code lockAtLeastFor}
	 * bounds, is at most the later run's start minus the earlier run's ask.
	 */
	static final class TimedLockProvider implements LockProvider {

		private static final ThreadLocal<Long> asked = new ThreadLocal<>();

		private final LockProvider delegate;

		TimedLockProvider(LockProvider delegate) {
			this.delegate = delegate;
		}

		@Override
		public Optional<SimpleLock> lock(LockConfiguration configuration) {
			long now = System.nanoTime();
			Optional<SimpleLock> lock = this.delegate.lock(configuration);
			if (lock.isPresent()) {
				asked.set(now);
			}
			return lock;
		}

		static long askedAt() {
			Long now = asked.get();
			if (now == null) {
				throw new IllegalStateException("The task ran without a lock taken on its thread");
			}
			return now;
		}

	}

	/**
	 * The control's provider: a lock per JVM, as without a shared store.
	 */
	static final class LocalLockProvider implements LockProvider {

		private final ConcurrentMap<String, Boolean> held = new ConcurrentHashMap<>();

		@Override
		public Optional<SimpleLock> lock(LockConfiguration configuration) {
			String name = configuration.getName();
			if (this.held.putIfAbsent(name, true) != null) {
				return Optional.empty();
			}
			return Optional.of(() -> this.held.remove(name));
		}

	}

}
