package dev.zklock.autoconfigure;

import java.net.InetAddress;
import java.net.ServerSocket;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Configuration;

import dev.zklock.testsupport.FreePorts;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;

/**
 * Tests that a failed startup prints zk-lock's failure analysis, i.e. that the
 * analyzers are registered in {@code META-INF/spring.factories}.
 */
@ExtendWith(OutputCaptureExtension.class)
class ZkLockFailureReportTests {

	@Test
	void invalidPropertyIsReported(CapturedOutput output) {
		assertThatException().isThrownBy(() -> run("zk-lock.base-path=locks"));
		assertThat(output).contains("APPLICATION FAILED TO START")
			.contains("Invalid value 'locks' for property 'zk-lock.base-path': it must start with '/'.")
			.contains("Set 'zk-lock.base-path' to an absolute ZooKeeper path such as '/locks'");
	}

	@Test
	void unreachableServerIsReported(CapturedOutput output) {
		int port = FreePorts.next();
		assertThatException()
			.isThrownBy(() -> run("zk-lock.connect-string=127.0.0.1:" + port, "zk-lock.startup.wait=300ms"));
		assertThat(output).contains("APPLICATION FAILED TO START")
			.contains("zk-lock could not connect to ZooKeeper at '127.0.0.1:" + port + "' within 300ms")
			.contains("'zk-lock.startup.fail-fast=false'");
	}

	@Test
	void busyEmbeddedPortIsReported(CapturedOutput output) throws Exception {
		try (ServerSocket busy = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
			int port = busy.getLocalPort();
			assertThatException()
				.isThrownBy(() -> run("zk-lock.embedded.enabled=true", "zk-lock.embedded.port=" + port));
			assertThat(output).contains("APPLICATION FAILED TO START")
				.contains("zk-lock.embedded.port " + port + " is already in use on 127.0.0.1")
				.contains("set zk-lock.embedded.port=0 to pick a free port");
		}
	}

	private static void run(String... properties) {
		new SpringApplicationBuilder(FailingApplication.class).web(WebApplicationType.NONE)
			.properties("spring.main.banner-mode=off")
			.properties(properties)
			.run()
			.close();
	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration({ EmbeddedZooKeeperAutoConfiguration.class, ZkLockAutoConfiguration.class })
	static class FailingApplication {

	}

}
