package dev.zklock.bench;

import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.zklock.autoconfigure.ZkLockMetricsAutoConfiguration;

/**
 * The benchmarks' application with zk-lock's Micrometer metrics on a
 * {@link SimpleMeterRegistry}: the lock manager is wrapped by the metrics'
 * {@link dev.zklock.core.LockInstrumentation}, as in an application with
 * Micrometer. A context of its own, so that the other rows run without metrics.
 */
@State(Scope.Benchmark)
public class MetricsFixture {

	private BenchContext context;

	private LockedService service;

	/**
	 * Start the context.
	 */
	@Setup(Level.Trial)
	public void start() {
		this.context = BenchContext.start(MetricsConfiguration.class);
		this.service = this.context.service();
	}

	/**
	 * Close the context.
	 */
	@TearDown(Level.Trial)
	public void stop() {
		this.context.close();
	}

	/**
	 * The annotated bean behind its proxy, with metrics.
	 * @return the proxy
	 */
	public LockedService service() {
		return this.service;
	}

	/**
	 * Micrometer's simple registry and zk-lock's metrics.
	 */
	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration(ZkLockMetricsAutoConfiguration.class)
	static class MetricsConfiguration {

		@Bean
		MeterRegistry meterRegistry() {
			return new SimpleMeterRegistry();
		}

	}

}
