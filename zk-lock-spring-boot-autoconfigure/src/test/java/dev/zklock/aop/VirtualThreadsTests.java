package dev.zklock.aop;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.zklock.testsupport.InJvmZooKeeper;
import dev.zklock.testsupport.Jdk21;
import dev.zklock.testsupport.JvmProcess;
import dev.zklock.testsupport.OutputLines;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A synchronous acquirer that waits on a virtual thread does not pin its carrier:
 * 1,000 virtual threads of Boot's executor ({@code spring.threads.virtual.enabled})
 * wait on one key with the default carrier pool and all get their turn, none of
 * them waits inside a monitor (which pins on JDK 21 whatever JFR says on newer
 * JDKs), and JFR records no {@code jdk.VirtualThreadPinned} event. The control
 * runs Curator's own {@code InterProcessMutex}, whose waiters do wait in a monitor,
 * so the check can fail. Runs {@link VirtualThreadsApplication} on a JDK 21 or
 * newer: this one, {@code ZK_LOCK_TEST_JDK21_HOME}, or one found in
 * {@code /usr/lib/jvm}; it fails instead of skipping when
 * {@code ZK_LOCK_TEST_VIRTUAL_THREADS_REQUIRED=true}.
 */
class VirtualThreadsTests {

	private static final Duration CHILD_TIMEOUT = Duration.ofSeconds(240);

	private static final Pattern NUMBER = Pattern.compile("(\\w+)=(\\d+)");

	private static Path javaHome;

	@TempDir
	Path directory;

	@BeforeAll
	static void findJdk21() {
		javaHome = Jdk21.requireHome();
	}

	@Test
	void thousandVirtualThreadsWaitOnOneKeyWithoutPinning() throws Exception {
		String result = run(false);
		assertThat(value(result, "completed")).as(result).isEqualTo(1000);
		assertThat(value(result, "virtual")).as(result).isEqualTo(1000);
		assertThat(value(result, "maxActive")).as(result).isEqualTo(1);
		assertThat(value(result, "parkedInZkLock")).as(result).isGreaterThanOrEqualTo(1000);
		assertThat(value(result, "monitorWaiters")).as(result).isZero();
		assertThat(value(result, "pinnedEvents")).as(result).isZero();
	}

	@Test
	void controlCuratorsMutexWaitsInAMonitor() throws Exception {
		String result = run(true);
		assertThat(value(result, "completed")).as(result).isEqualTo(1000);
		assertThat(value(result, "monitorWaiters")).as(result).isGreaterThanOrEqualTo(1000);
		assertThat(value(result, "parkedInZkLock")).as(result).isZero();
	}

	private String run(boolean control) throws Exception {
		try (InJvmZooKeeper zookeeper = InJvmZooKeeper.builder().start()) {
			OutputLines output = new OutputLines();
			JvmProcess application = JvmProcess
				.builder("Virtual-thread application", VirtualThreadsApplication.class.getName())
				.directory(this.directory)
				.javaHome(javaHome)
				.arguments(Stream.of("--zk-lock.connect-string=" + zookeeper.connectString(),
						"--zk-lock.base-path=/virtual/" + UUID.randomUUID(), control ? "--control" : "")
					.filter((argument) -> !argument.isEmpty())
					.toList())
				.jvmOptions(List.of("-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"))
				.outputListener(output)
				.build();
			application.start();
			int status = application.awaitExit(CHILD_TIMEOUT);
			String result = output.awaitLine(application, "RESULT ", Duration.ofSeconds(10));
			System.out.println((control ? "control " : "") + result);
			assertThat(status).as(application::diagnostics).isZero();
			assertThat(result).as(application::diagnostics).startsWith("RESULT ok ");
			return result;
		}
	}

	private static int value(String result, String name) {
		Matcher matcher = NUMBER.matcher(result);
		while (matcher.find()) {
			if (matcher.group(1).equals(name)) {
				return Integer.parseInt(matcher.group(2));
			}
		}
		throw new IllegalArgumentException("No " + name + " in " + result);
	}

}
