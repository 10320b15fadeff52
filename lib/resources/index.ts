import { Registry } from '#lib/jsonapi/registry.ts';
import { customMetadatumCollections } from '#lib/resources/custom-metadatum-collections.ts';
import { labware, plates, tubes } from '#lib/resources/labware.ts';
import { lots, lotTypes } from '#lib/resources/lots.ts';
import { polyMetadata } from '#lib/resources/poly-metadata.ts';
import { qcAssays, qcResults } from '#lib/resources/qc-assays.ts';
import { qcables } from '#lib/resources/qcables.ts';
import { qcableCreators } from '#lib/resources/qcable-creators.ts';
import { tagGroupAdapterTypes, tagSets } from '#lib/resources/tag-sets.ts';
import { aliquots, receptacles, wells } from '#lib/resources/receptacles.ts';
import { requestMetadata } from '#lib/resources/request-metadata.ts';
import { requestBooks } from '#lib/resources/request-books.ts';
import { requests } from '#lib/resources/requests.ts';
import { rackedTubes, tubeRacks } from '#lib/resources/tube-racks.ts';
import {
  baitLibraries,
  barcodePrinters,
  facultySponsors,
  projects,
  requestTypes,
  sampleManifests,
  studies,
  studyMetadata,
  submissionTemplates,
  tagGroups,
  tagLayoutTemplates,
  transferTemplates,
  users,
} from '#lib/resources/reference.ts';
import { platePurposes, purposes, tubePurposes, tubeRackPurposes } from '#lib/resources/purposes.ts';
import {
  plateConversions,
  plateCreations,
  pooledPlateCreations,
  specificTubeCreations,
  tubeFromPlateCreations,
  tubeFromTubeCreations,
} from '#lib/resources/labware-creations.ts';
import { specificTubeRackCreations } from '#lib/resources/tube-rack-creations.ts';
import { tagLayouts } from '#lib/resources/tag-layouts.ts';
import { transferRequestCollections } from '#lib/resources/transfer-request-collections.ts';
import { transferRequests } from '#lib/resources/transfer-requests.ts';
import { transfers } from '#lib/resources/transfers.ts';
import { sampleMetadata } from '#lib/resources/sample-metadata.ts';
import { samples } from '#lib/resources/samples.ts';
import { stateChanges } from '#lib/resources/state-changes.ts';
import { workCompletions } from '#lib/resources/work-completions.ts';
import { orders } from '#lib/resources/orders.ts';
import { submissions } from '#lib/resources/submissions.ts';
import { preCapturePools, primerPanels, tags } from '#lib/resources/unrecorded.ts';
import { submissionPools } from '#lib/resources/submission-pools.ts';
import { bulkTransfers } from '#lib/resources/bulk-transfers.ts';
import { qcFiles } from '#lib/resources/qc-files.ts';
import { baitLibraryLayouts } from '#lib/resources/bait-library-layouts.ts';
import { assetAudits } from '#lib/resources/asset-audits.ts';
import { volumeUpdates } from '#lib/resources/volume-updates.ts';
import { comments } from '#lib/resources/comments.ts';
import { labwareAudits } from '#lib/resources/labware-audits.ts';
import { fragments, lanes } from '#lib/resources/pipeline-records.ts';
import { pickLists } from '#lib/resources/pick-lists.ts';
import { workOrders } from '#lib/resources/work-orders.ts';
import { heron, tubeRackStatuses } from '#lib/resources/heron.ts';

/** Every JSON:API type the service serves. Adding a type is adding its definition here. */
export const registry = new Registry([
  samples,
  sampleMetadata,
  users,
  studies,
  platePurposes,
  tubePurposes,
  tubeRackPurposes,
  purposes,
  requestTypes,
  barcodePrinters,
  submissionTemplates,
  tagGroupAdapterTypes,
  tagGroups,
  tagSets,
  tagLayoutTemplates,
  transferTemplates,
  labware,
  plates,
  tubes,
  tubeRacks,
  wells,
  receptacles,
  aliquots,
  rackedTubes,
  customMetadatumCollections,
  lotTypes,
  lots,
  qcables,
  stateChanges,
  qcAssays,
  qcResults,
  submissions,
  orders,
  requests,
  requestBooks,
  requestMetadata,
  polyMetadata,
  transfers,
  transferRequests,
  transferRequestCollections,
  plateConversions,
  tubeFromPlateCreations,
  plateCreations,
  pooledPlateCreations,
  tubeFromTubeCreations,
  specificTubeCreations,
  specificTubeRackCreations,
  tagLayouts,
  workCompletions,
  projects,
  primerPanels,
  preCapturePools,
  submissionPools,
  tags,
  bulkTransfers,
  qcFiles,
  baitLibraries,
  baitLibraryLayouts,
  assetAudits,
  volumeUpdates,
  comments,
  labwareAudits,
  facultySponsors,
  studyMetadata,
  sampleManifests,
  lanes,
  workOrders,
  pickLists,
  fragments,
  // After every type whose examples name labware ids: the plates its examples make come after theirs (lib/resources/examples.ts).
  qcableCreators,
  tubeRackStatuses,
  heron,
]);
