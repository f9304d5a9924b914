package dev.zklock.autoconfigure;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

import org.apache.curator.framework.CuratorFramework;

import org.springframework.boot.Banner;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.Environment;

import dev.zklock.LockException;
import dev.zklock.LockHandle;
import dev.zklock.LockRequest;
import dev.zklock.core.CuratorLockManager;
import dev.zklock.testsupport.JvmProcess;
import dev.zklock.testsupport.ParentWatchdog;

/**
 * A second zk-lock application, run in its own JVM by a {@link JvmProcess}: it takes
 * the lock {@code worker.lock} / {@code worker.key} through the auto-configured client
 * and reports on standard output. It prints {@code WAITING}, then {@code ACQUIRED},
 * {@code NOT_ACQUIRED} or {@code FAILED <message>}; once acquired, it holds the lock
 * until it reads {@code RELEASE}, then prints {@code RELEASED}. Properties come as
 * {@code --name=value} arguments or environment variables. Its {@link ParentWatchdog}
 * halts it when the test JVM goes away.
 */
@SpringBootConfiguration(proxyBeanMethods = false)
@ImportAutoConfiguration(ZkLockAutoConfiguration.class)
public class LockWorker {

	private static final CountDownLatch release = new CountDownLatch(1);

	public static void main(String[] args) throws Exception {
		Thread input = new Thread(LockWorker::readInput, "worker-input");
		input.setDaemon(true);
		input.start();
		SpringApplication application = new SpringApplication(LockWorker.class);
		application.setWebApplicationType(WebApplicationType.NONE);
		application.setBannerMode(Banner.Mode.OFF);
		application.setDefaultProperties(Map.of("spring.docker.compose.enabled", "false"));
		try (ConfigurableApplicationContext context = application.run(args)) {
			Environment environment = context.getEnvironment();
			ZkLockProperties properties = context.getBean(ZkLockProperties.class);
			CuratorLockManager manager = new CuratorLockManager(context.getBean(CuratorFramework.class),
					properties.getBasePath(), properties.getDefaultTimeout());
			LockRequest request = LockRequest.named(environment.getRequiredProperty("worker.lock"))
				.keys(environment.getRequiredProperty("worker.key"))
				.timeout(Duration.ofSeconds(60))
				.build();
			report("WAITING");
			try (LockHandle handle = manager.acquire(request)) {
				if (!handle.isAcquired()) {
					report("NOT_ACQUIRED");
					return;
				}
				report("ACQUIRED");
				release.await();
			}
			catch (LockException ex) {
				report("FAILED " + ex.getMessage().replace('\n', ' '));
				return;
			}
			report("RELEASED");
		}
	}

	private static void readInput() {
		try {
			while (!ParentWatchdog.commands().take().equals("RELEASE")) {
				// other commands are ignored
			}
			release.countDown();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	private static void report(String line) {
		System.out.println(line);
		System.out.flush();
	}

}
