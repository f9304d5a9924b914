package dev.zklock.core;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;

import dev.zklock.annotation.LockMode;

import static dev.zklock.core.ProxiedLockClient.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A release whose delete is on its way to ZooKeeper when the application closes
 * the manager and then the Curator client: the delete fails with the closed
 * client, and the node goes with the session. The release still completes, the
 * registry is left with nothing (no lock shown releasing forever), and nothing
 * claims at ERROR that Curator deletes the node in the background.
 */
class ReleaseInFlightAtCloseTests {

	private ProxiedLockClient rig;

	private final ListAppender<ILoggingEvent> releaseLog = new ListAppender<>();

	private final Logger holdRelease = (Logger) LoggerFactory.getLogger(HoldRelease.class);

	@BeforeEach
	void start() throws Exception {
		this.rig = new ProxiedLockClient("releasing", "/release-at-close-" + UUID.randomUUID());
		this.releaseLog.start();
		this.holdRelease.addAppender(this.releaseLog);
	}

	@AfterEach
	void stop() throws Exception {
		this.holdRelease.detachAppender(this.releaseLog);
		this.rig.close();
	}

	@Test
	void aReleaseWhoseDeleteIsInFlightWhenTheClientClosesLeavesNothingReleasing() throws Exception {
		AsyncLockHandle handle = this.rig.async.acquire(request(LockMode.MUTEX, List.of("7")))
			.get(10, TimeUnit.SECONDS);
		String node = handle.nodePath();
		// the delete is sent and never answered
		this.rig.proxy.blackhole();
		CompletableFuture<Void> released = handle.release();
		this.rig.manager.close();
		// the close waits for its closeSession, which the blackhole holds back
		CompletableFuture<Void> clientClosed = CompletableFuture.runAsync(this.rig.client::close);
		await("client stopped").atMost(Duration.ofSeconds(10))
			.until(() -> this.rig.client.getState() == CuratorFrameworkState.STOPPED);
		// the connection fails: the delete in flight comes back as a connection loss on a closed client
		this.rig.proxy.reset();
		clientClosed.get(30, TimeUnit.SECONDS);
		released.handle((ignored, ex) -> null).get(10, TimeUnit.SECONDS);
		assertThat(this.rig.manager.getRegistry().snapshot()).as("registry after the release, client closed")
			.isEmpty();
		assertThat(this.releaseLog.list).as("HoldRelease log")
			.noneMatch((event) -> event.getLevel() == Level.ERROR);
		// the closeSession never reached the server: the node goes when the session expires
		this.rig.proxy.pass();
		await("node gone with its session").atMost(Duration.ofSeconds(40)).until(() -> this.rig.owner(node) == 0);
	}

}
